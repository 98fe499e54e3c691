import EventLog
import Foundation
import Testing
import TestSupport

/// `keys rotate` killed at random moments: the store must open with exactly one of the two keys,
/// and read every event with it.
@Suite(.timeLimit(.minutes(runningSanitized ? 30 : 15))) struct KeyRotationCrashTests {
    @Test func aRotationKilledAtAnyMomentLeavesTheStoreReadableWithExactlyOneKey() async throws {
        try await withCLI { cli in
            let original = cli.directory.appendingPathComponent("original").path
            let oldKey = cli.directory.appendingPathComponent("old.key").path
            let newKey = cli.directory.appendingPathComponent("new.key").path
            try MasterKeyFile.create(at: oldKey)
            try MasterKeyFile.create(at: newKey)
            let count = try await {
                var options = EventLogOptions.testing
                options.durable = false
                let log = try EventLog.create(at: original, key: .keyFile(oldKey), options: options)
                for batch in 0..<40 {  // many data keys and view rows: a rotation that takes a while
                    try await log.append((0..<50).map { StreamAppend(stream: StreamID(), events: [ProposedEvent(type: "note", data: Array("batch \(batch) stream \($0)".utf8))]) })
                }
                try log.updateView("rows") { view in for index in 0..<3000 { try view.put(withUnsafeBytes(of: UInt32(index).bigEndian, Array.init), [UInt8](repeating: 1, count: 64)) } }
                try log.close()
                return try log.eventCount()
            }()
            var outcomes: [String] = []
            for round in 0..<10 {
                let store = cli.directory.appendingPathComponent("round-\(round)").path
                try FileManager.default.copyItem(atPath: original, toPath: store)
                let rotation = try ChildProcess(CLIRunner.binary(),
                                                ["keys", "rotate", "--store", store, "--key-file", oldKey, "--new-key-file", newKey])
                try await Task.sleep(for: .milliseconds(round * 12))
                rotation.kill()

                let withOld = try? EventLog.open(at: store, key: .keyFile(oldKey), options: .testing)
                let withNew = try? EventLog.open(at: store, key: .keyFile(newKey), options: .testing)
                #expect((withOld == nil) != (withNew == nil), "round \(round): exactly one key must open the store")
                let log = try #require(withOld ?? withNew)
                #expect(try log.eventCount() == count)
                #expect(try log.readAll().count == Int(count), "round \(round): every event reads with the key that opens")
                #expect(try log.readView("rows") { view in var rows = 0; try view.forEachRow { _, _ in rows += 1 }; return rows } == 3000)
                outcomes.append(withOld != nil ? "old" : "new")
            }
            // Not a condition of correctness, but the rounds should have caught both sides.
            print("key rotation kills: \(outcomes)")
        }
    }
}
