import EventLog
import Foundation
import TestSupport
import Testing

/// A writer process is killed with SIGKILL at random moments; every append it had been told was
/// durable must survive, and the store must open and verify intact after each kill.
///
/// `EVENTLOG_CRASH_ROUNDS` sets the number of kills (20 by default; raise it for a slower, deeper run).
@Suite struct CrashSafetyTests {
    static var rounds: Int { ProcessInfo.processInfo.environment["EVENTLOG_CRASH_ROUNDS"].flatMap(Int.init) ?? 20 }

    @Test func everyAcknowledgedAppendSurvivesSIGKILLAndTheStoreVerifies() async throws {
        try await withTemporaryStore { store in
            try store.create().close()
            let ackPath = store.root.appendingPathComponent("acks").path
            var generator = SystemRandomNumberGenerator()
            var acknowledgedBefore = 0
            for round in 0..<Self.rounds {
                let writer = Process()
                writer.executableURL = BuiltProducts.url("EventLogCrashWriter")
                writer.arguments = [store.storePath, store.keyPath, ackPath]
                try writer.run()
                // Let it start (opening the store), then kill it somewhere in its work.
                try await Task.sleep(for: .milliseconds(Int.random(in: 60...400, using: &generator)))
                kill(writer.processIdentifier, SIGKILL)
                writer.waitUntilExit()
                #expect(writer.terminationReason == .uncaughtSignal, "round \(round): the writer exited by itself")

                let acknowledged = try Self.acknowledgements(ackPath)
                let log = try store.open()
                let report = try log.verify()
                #expect(report.isIntact, "round \(round): \(report.problems.prefix(3))")
                let stored = Dictionary(uniqueKeysWithValues: try log.readAll().map { ($0.position, $0.id) })
                for (position, id) in acknowledged {
                    #expect(stored[position] == id, "round \(round): acknowledged event at \(position) is missing or changed")
                }
                acknowledgedBefore = acknowledged.count
            }
            #expect(acknowledgedBefore > Self.rounds, "the writer should have acknowledged appends across the rounds")
        }
    }

    /// Acknowledged events, `position → event id`. A line cut off by the kill is ignored.
    static func acknowledgements(_ path: String) throws -> [(UInt64, UUID)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let position = UInt64(parts[0]), let id = UUID(uuidString: String(parts[1])) else { return nil }
            return (position, id)
        }
    }
}
