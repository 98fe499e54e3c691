import Foundation
import SessionModel
@testable import SessionStoreClient
import TestSupport
import Testing

/// The outbox killed at any instant: ClientCrashWriter appends from four threads until SIGKILL, round after round on
/// one outbox; after each kill, the outbox must hold every event whose append returned and that was not released, in
/// order, each line intact, and at most one event per thread beyond them (the append the kill cut short).
@Suite struct OutboxCrashTests {
    @Test(.timeLimit(.minutes(5))) func everyAppendThatReturnedSurvivesAKillInOrderAndIntact() async throws {
        let directory = outboxDirectory()
        let acks = Scratch.url("client-crash-acks-\(UUID().uuidString.prefix(8))")
        let key = OutboxKey.generate()
        let keyHex = key.bytes.map { String(format: "%02x", $0) }.joined()
        var generator = SeededGenerator(seed: 65)
        for round in 1...6 {
            let reportedBefore = Self.size(of: acks)
            let writer = try ChildProcess(BuiltProducts.url("ClientCrashWriter"), [directory.path, keyHex, acks.path, "4"])
            let delay = Int.random(in: 50...600, using: &generator)
            // The kill lands a random time after the round's first append returned, however long a loaded machine
            // takes to start the process and open the outbox.
            let outcome = try await offThePool { () -> ChildProcess.Outcome in
                let deadline = ContinuousClock.now + .seconds(120)
                while Self.size(of: acks) == reportedBefore, writer.isRunning, ContinuousClock.now < deadline { usleep(5_000) }
                usleep(useconds_t(delay * 1000))
                writer.kill()
                return writer.wait(limit: .seconds(10))
            }
            try #require(outcome.signalled, "the writer exited by itself: \(outcome.stderr)")
            try check(directory: directory, key: key, acks: acks, round: round, threads: 4)
        }
    }

    private static func size(of file: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int) ?? 0
    }

    private func check(directory: URL, key: OutboxKey, acks: URL, round: Int, threads: Int) throws {
        var appended: [UUID: [(sequence: UInt64, id: UUID)]] = [:]
        var released: [UUID: UInt64] = [:]
        let text = (try? String(contentsOf: acks, encoding: .utf8)) ?? ""
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 4, parts[0] == "append", let sequence = UInt64(parts[1]), let id = UUID(uuidString: String(parts[2])),
               let session = UUID(uuidString: String(parts[3])) {
                appended[session, default: []].append((sequence, id))
            } else if parts.count == 3, parts[0] == "release", let session = UUID(uuidString: String(parts[1])), let through = UInt64(parts[2]) {
                released[session] = max(released[session] ?? 0, through)
            }
        }
        #expect(!appended.isEmpty, "round \(round): the writer appended nothing before the kill")
        let outbox = try Outbox(OutboxConfiguration(directory: directory, key: key, byteBudget: 1 << 30, segmentBytes: 64 << 10))
        var unreported = 0
        for (session, events) in appended {
            let pending = outbox.pending(of: session, limit: .max)
            let held = Dictionary(uniqueKeysWithValues: pending.map { ($0.id, $0) })
            // A release is written without a sync: one the kill lost leaves its events pending, which is allowed.
            let mustHold = events.filter { $0.sequence > (released[session] ?? 0) }
            // A release the kill cut after its record was written, before it was reported, frees the 20 events after the
            // last one reported, and no others.
            let missing = mustHold.filter { held[$0.id]?.sequence != $0.sequence }
            let cutRelease = missing.count <= 20 && missing.map(\.id) == mustHold.prefix(missing.count).map(\.id)
            #expect(missing.isEmpty || cutRelease, "round \(round): \(missing.count) of \(mustHold.count) appended events of a session are missing")
            #expect(pending.map(\.sequence) == pending.map(\.sequence).sorted(), "round \(round): pending events out of order")
            for entry in pending {
                let line = try outbox.line(of: entry)
                #expect(String(decoding: line, as: UTF8.self).contains(entry.id.uuidString), "round \(round): event \(entry.sequence) holds another line")
            }
            let reported = Set(events.map(\.id))
            unreported += pending.filter { !reported.contains($0.id) }.count
        }
        // Each kill may cut one append per thread after its record was written and before it was reported; their
        // sessions' threads are gone, so those events stay, round after round.
        #expect(unreported <= threads * round, "round \(round): \(unreported) events in the outbox no append reported, beyond one per thread a kill")
    }
}
