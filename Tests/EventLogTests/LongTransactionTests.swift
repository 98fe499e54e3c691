import EventLog
import Foundation
import Synchronization
import TestSupport
import Testing

/// ``EventLog/appendInOneTransaction(_:)``: many groups, written as they come, visible
/// together or not at all.
@Suite struct LongTransactionTests {
    /// 20 groups of 500 events, each group to `streams[group % streams.count]`.
    static func appendGroups(_ appender: TransactionAppender, streams: [StreamID], data: Int = 64) throws -> Int {
        var appended = 0
        for group in 0..<20 {
            let events = (0..<500).map { index in ProposedEvent(type: "note", data: Array(repeating: UInt8(index % 251), count: data)) }
            appended += try appender.append([StreamAppend(stream: streams[group % streams.count], events: events)])[0].positions.count
        }
        return appended
    }

    @Test func groupsAreAppendedInOrderAndReadersSeeNoneUntilTheBodyReturns() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            try await log.append([event("before")], to: StreamID())
            let streams = [StreamID(), StreamID(), StreamID()]
            let seenDuring = try await log.appendInOneTransaction { appender in
                let appended = try Self.appendGroups(appender, streams: streams)
                #expect(try appender.streamMetadata(streams[0])?.version == 3_500, "the transaction sees its own appends")
                return (appended, try log.eventCount(), try log.streamMetadata(streams[0]))
            }
            #expect(seenDuring.0 == 10_000)
            #expect(seenDuring.1 == 1, "a reader during the transaction saw only the committed event")
            #expect(seenDuring.2 == nil)
            #expect(try log.eventCount() == 10_001)
            #expect(try log.readStream(streams[2]).map(\.streamNumber) == Array(0..<3_000))
            #expect(try log.positions(of: streams[0]).first == 1)
            #expect(try log.verify().isIntact)
        }
    }

    @Test func aBodyThatThrowsLeavesNothingAndTheLogAppendsAfterwards() async throws {
        struct Stop: Error {}
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            try await log.append([event("kept")], to: stream)
            let keys = try log.statistics().dataKeys
            await #expect(throws: Stop.self) {
                try await log.appendInOneTransaction { appender in
                    _ = try Self.appendGroups(appender, streams: [StreamID(), stream])
                    throw Stop()
                }
            }
            let refused = await #expect(throws: EventLogError.self) {
                try await log.appendInOneTransaction { appender in
                    _ = try Self.appendGroups(appender, streams: [StreamID()])
                    _ = try appender.append([StreamAppend(stream: stream, events: [event("stale")], expectedVersion: .exact(0))])
                }
            }
            #expect(refused?.code == .wrongExpectedVersion)
            #expect(try log.eventCount() == 1)
            #expect(try log.statistics().dataKeys == keys, "no data key of the aborted transactions is left")
            try await log.append([event("after")], to: stream)
            #expect(try log.readStream(stream).map(\.text) == ["kept", "after"])
            #expect(try log.verify().isIntact)
        }
    }

    /// 10,000 records in one transaction (1.6 MB in the file): with 48 MiB of headroom in the map the
    /// body runs once and lands; with 256 KiB (a map of 1 MiB) it runs once, is refused as too large,
    /// nothing of it is stored, and the log goes on appending (the map grew meanwhile).
    @Test(.enabled(if: TestBackend.isLMDB, "LMDB's map"), arguments: [256 << 10, 48 << 20])
    func aLongTransactionRunsOnceAndIsRefusedWholeWhenItOutgrowsTheMapsHeadroom(headroom: Int) async throws {
        try await withTemporaryStore { store in
            var options = EventLogOptions()
            options.mapHeadroom = headroom
            let log = try store.create(options)
            let runs = Atomic<Int>(0)
            let appended: Int?
            do {
                appended = try await log.appendInOneTransaction { appender in
                    runs.add(1, ordering: .relaxed)
                    return try Self.appendGroups(appender, streams: [StreamID()], data: 2_000)
                }
            } catch let error as EventLogError {
                #expect(error.code == .tooLarge && headroom == 256 << 10, "\(error)")
                appended = nil
            }
            #expect(runs.load(ordering: .relaxed) == 1, "the body never runs twice")
            #expect(appended == (headroom == 256 << 10 ? nil : 10_000))
            #expect(try log.eventCount() == (appended ?? 0))
            try await log.append([event("after")], to: StreamID())
            #expect(try log.eventCount() == (appended ?? 0) + 1)
            #expect(try log.verify().isIntact)
        }
    }

    @Test func deduplicationSeesEarlierGroupsOfTheSameTransaction() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            let stored = event("stored")
            try await log.append([stored], to: stream)
            let repeated = (0..<3_000).map { event("event \($0)", type: "note") }
            let results = try await log.appendInOneTransaction { appender in
                try [repeated, repeated + [stored], Array(repeated.suffix(10))].map {
                    try appender.append([StreamAppend(stream: stream, events: $0, deduplicate: true)])[0]
                }
            }
            #expect(results.map(\.positions.count) == [3_000, 0, 0])
            #expect(results.map(\.duplicates) == [0, 3_001, 10])
            #expect(try log.streamMetadata(stream)?.version == 3_001)
        }
    }
}
