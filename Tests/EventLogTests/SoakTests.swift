import EventLog
import Foundation
import TestSupport
import Testing

/// Four writer processes and four subscriber processes on one store for a while (opt-in:
/// `EVENTLOG_SOAK_SECONDS=60`): afterwards no event is lost, duplicated or reordered, positions are
/// contiguous, every acknowledged append is stored, and every subscriber saw every event once, in order.
@Suite(.timeLimit(.minutes(10))) struct SoakTests {
    static let seconds = ProcessInfo.processInfo.environment["EVENTLOG_SOAK_SECONDS"].flatMap(Int.init)

    @Test(.enabled(if: seconds != nil, "opt-in: EVENTLOG_SOAK_SECONDS=60"))
    func fourWritersAndFourSubscribersLoseDuplicateAndReorderNothing() async throws {
        let seconds = try #require(Self.seconds)
        try await withTemporaryStore { store in
            try store.create().close()
            let crashWriter = BuiltProducts.url("EventLogCrashWriter")
            let subscribed = (0..<4).map { store.root.appendingPathComponent("subscriber-\($0)").path }
            let acknowledged = (0..<4).map { store.root.appendingPathComponent("acks-\($0)").path }
            let subscribers = try subscribed.map { try ChildProcess(crashWriter, ["--subscribe", store.storePath, store.keyPath, $0]) }
            let writers = try acknowledged.map { try ChildProcess(crashWriter, [store.storePath, store.keyPath, $0, "4"]) }
            try await Task.sleep(for: .seconds(seconds))
            for writer in writers { writer.kill() }

            let log = try store.open()
            #expect(try log.verify().isIntact)
            let events = try log.readAll()
            #expect(events.map(\.position) == Array(0..<UInt64(events.count)), "positions are contiguous")
            #expect(Set(events.map(\.id)).count == events.count, "no event is stored twice")
            let stored = Dictionary(uniqueKeysWithValues: events.map { ($0.position, $0.id) })
            for path in acknowledged {
                let acks = CrashWriterAcknowledgements.read(path: path)
                #expect(!acks.isEmpty, "\(path) acknowledged nothing")
                #expect(acks.allSatisfy { stored[$0.0] == $0.1 }, "every acknowledged append of \(path) is stored")
            }
            // The subscribers catch up, then each must have seen exactly the log, in order.
            let deadline = ContinuousClock.now + .seconds(60)
            while subscribed.contains(where: { CrashWriterAcknowledgements.read(path: $0).count < events.count }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
            for subscriber in subscribers { subscriber.kill() }
            for path in subscribed {
                let seen = CrashWriterAcknowledgements.read(path: path)
                #expect(seen.count == events.count, "\(path) saw \(seen.count) of \(events.count) events")
                #expect(seen.elementsEqual(events.map { ($0.position, $0.id) }) { $0 == $1 }, "\(path) saw every event once, in order")
            }
            print("soak: \(events.count) events in \(seconds) s from 4 writer processes, seen by 4 subscriber processes")
        }
    }
}
