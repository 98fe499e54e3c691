import EventLog
import Foundation
import TestSupport
import Testing

@Suite struct DeduplicationTests {
    @Test func resendingTheSameEventsAppendsNothing() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            let events = (0..<5).map { event("\($0)") }
            let first = try await log.append(events, to: stream, deduplicate: true)
            #expect(first.duplicates == 0)
            let again = try await log.append(events, to: stream, expectedVersion: .noStream, deduplicate: true)
            #expect(again.duplicates == 5)
            #expect(again.positions.isEmpty)
            #expect(again.nextExpectedVersion == 5)
            #expect(try log.readStream(stream).map(\.text) == ["0", "1", "2", "3", "4"])
        }
    }

    @Test func aPartlyResentBatchAppendsOnlyTheNewEventsInOrder() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            let events = (0..<6).map { event("\($0)") }
            try await log.append(Array(events[0..<3]), to: stream, deduplicate: true)
            let result = try await log.append(events + [events[5]], to: stream, expectedVersion: .exact(3), deduplicate: true)
            #expect(result.duplicates == 4)  // three stored already, one repeated within the batch
            #expect(result.nextExpectedVersion == 6)
            #expect(try log.readStream(stream).map(\.id) == events.map(\.id))
        }
    }

    @Test func concurrentResendsStoreExactlyOneCopy() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            let events = (0..<20).map { event("\($0)") }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 { group.addTask { try await log.append(events, to: stream, deduplicate: true) } }
                try await group.waitForAll()
            }
            #expect(try log.readStream(stream).map(\.id) == events.map(\.id))
        }
    }

    @Test func aResendInOneTransactionFindsTheEventsQueuedBeforeItButNotThoseOfARefusedGroup() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let (stream, other) = (StreamID(), StreamID())
            let events = (0..<4).map { event("\($0)") }
            let refused = event("refused")
            let resent = try await log.appendInOneTransaction { appender in
                _ = try appender.append([StreamAppend(stream: stream, events: Array(events[0..<2]))])
                _ = try appender.append([StreamAppend(stream: other, events: [event("other")], deduplicate: true)])
                #expect(throws: EventLogError.self) {
                    try appender.append([StreamAppend(stream: stream, events: [refused], expectedVersion: .exact(0))])
                }
                return try appender.append([StreamAppend(stream: stream, events: events + [refused], deduplicate: true)])[0]
            }
            #expect(resent.duplicates == 2)
            #expect(try log.readStream(stream).map(\.id) == (events + [refused]).map(\.id))
        }
    }

    @Test func duplicatesAreFoundInTheIndexedPartOfALongStream() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            let events = (0..<3000).map { event("\($0)") }
            for chunk in stride(from: 0, to: 3000, by: 500) {
                try await log.append(Array(events[chunk..<(chunk + 500)]), to: stream)
            }
            let result = try await log.append([events[10], events[2999], event("new")], to: stream, deduplicate: true)
            #expect(result.duplicates == 2)
            #expect(try log.streamMetadata(stream)?.version == 3001)
        }
    }

    @Test func storedEventsGivesEachAskedIdItsOwnEventFromInsideBlocksAndNothingForOthers() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID(), other = StreamID()
            let events = (0..<1_200).map { event("e\($0)") }
            for start in stride(from: 0, to: 1_200, by: 400) {
                try await log.append(Array(events[start..<(start + 400)]), to: stream)
            }
            try await log.append([event("elsewhere")], to: other)
            let asked = [0, 1, 57, 399, 400, 1_199].map { events[$0] }
            let unknown = UUID()
            let found = try log.storedEvents(of: stream, withIDs: Set(asked.map(\.id) + [unknown]))
            #expect(found.count == asked.count)
            for proposed in asked {
                #expect(found[proposed.id]?.id == proposed.id)
                #expect(found[proposed.id]?.data == proposed.data)
            }
            #expect(try log.storedEvents(of: other, withIDs: Set(asked.map(\.id))).isEmpty)
        }
    }

    @Test func withoutDeduplicationTheSameIdsAreAppendedAgain() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            let events = [event("a")]
            try await log.append(events, to: stream)
            let again = try await log.append(events, to: stream)
            #expect(again.duplicates == 0)
            #expect(try log.readStream(stream).count == 2)
        }
    }
}
