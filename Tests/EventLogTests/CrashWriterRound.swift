import EventLog
import Foundation
import TestSupport
import Testing

/// One round against EventLogCrashWriter: start it, let it append, kill it; then what must hold of
/// the store it leaves.
enum CrashWriterRound {
    /// Starts the writer on `store` with `appenders` concurrent appenders and kills it after `delay`.
    static func runAndKill(_ store: TemporaryStore, appenders: Int, after delay: Duration,
                           environment: [String: String]? = nil) async throws {
        let writer = try ChildProcess(BuiltProducts.url("EventLogCrashWriter"),
                                      [store.storePath, store.keyPath, CrashWriterAcknowledgements.path(store), String(appenders)],
                                      environment: environment)
        // The kill is timed on a Dispatch queue, not by the test's task: with the cooperative pool busy
        // (the other suites run beside this one), a task's sleep can end seconds late, and the writer
        // meanwhile fills the store that every round reads back whole.
        let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) {
                writer.kill()
                done.resume()
            }
        }
        let outcome = writer.wait(limit: .seconds(10))
        try #require(outcome.signalled, "the writer exited by itself: \(outcome.stderr)")
    }

    /// The store verifies, holds every acknowledged event at its position, and holds each batch whole
    /// or not at all; returns the number of events acknowledged.
    @discardableResult
    static func checkSurvivors(_ store: TemporaryStore, round: Int, _ context: @autoclosure () -> String = "") throws -> Int {
        let acknowledged = CrashWriterAcknowledgements.read(store)
        let log = try store.open()
        defer { try? log.close() }
        let report = try log.verify()
        #expect(report.isIntact, "round \(round): \(report.problems.prefix(3)) \(context())")
        let events = try log.readAll()
        let stored = Dictionary(uniqueKeysWithValues: events.map { ($0.position, $0.id) })
        let missing = acknowledged.filter { stored[$0.0] != $0.1 }
        #expect(missing.count == 0, "round \(round): \(missing.count) of \(acknowledged.count) acknowledged events are missing or changed, the first at \(missing.first.map { "\($0.0)" } ?? "-") \(context())")
        // Batch `writer P worker W round R` holds 1 + R % 4 events: all of them or none.
        var batches: [Substring: Int] = [:]
        for event in events where event.type == "crash.test" {
            let text = event.text
            guard let cut = text.range(of: " event ") else { continue }
            batches[text[..<cut.lowerBound], default: 0] += 1
        }
        let cut = batches.filter { batch, count in count != 1 + (Int(batch.split(separator: " ").last ?? "") ?? -1) % 4 }
        #expect(cut.isEmpty, "round \(round): batches stored in part: \(cut.prefix(3)) \(context())")
        return acknowledged.count
    }
}
