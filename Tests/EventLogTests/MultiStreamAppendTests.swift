import EventLog
import Foundation
import TestSupport
import Testing

@Suite struct MultiStreamAppendTests {
    @Test func allPartsOfAGroupAreAppendedTogetherInOrder() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let session = StreamID(), trail = StreamID()
            let results = try await log.append([
                StreamAppend(stream: session, events: [event("started"), event("granted")], expectedVersion: .noStream),
                StreamAppend(stream: trail, events: [event("granted")], keyScope: .audit),
            ])
            #expect(results.map(\.positions) == [0..<2, 2..<3])
            #expect(try log.readStream(session).map(\.text) == ["started", "granted"])
            #expect(try log.readStream(trail).map(\.text) == ["granted"])
            #expect(try log.streamMetadata(trail)?.keyID == 1)
        }
    }

    @Test func aRefusedPartLeavesNothingOfItsGroupAndNoNewKey() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let existing = StreamID()
            try await log.append([event("first")], to: existing)
            let keysBefore = try log.statistics().dataKeys
            let fresh = StreamID()
            let error = await #expect(throws: EventLogError.self) {
                try await log.append([
                    StreamAppend(stream: fresh, events: [event("would be new")]),
                    StreamAppend(stream: existing, events: [event("stale")], expectedVersion: .exact(0)),
                ])
            }
            #expect(error?.code == .wrongExpectedVersion)
            #expect(error?.stream == existing)
            #expect(try log.readStream(fresh).isEmpty)
            #expect(try log.streamMetadata(fresh) == nil)
            #expect(try log.readStream(existing).map(\.text) == ["first"])
            #expect(try log.statistics().dataKeys == keysBefore)
            // The store carries on normally, with positions still contiguous.
            try await log.append([event("after")], to: fresh)
            #expect(try log.readAll().map(\.position) == [0, 1])
            #expect(try log.verify().isIntact)
        }
    }

    @Test func groupsInTheSameTransactionFailOrSucceedIndependently() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let shared = StreamID()
            try await log.append([event("x")], to: shared)
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        let parts = [
                            StreamAppend(stream: StreamID(), events: [event("own \(index)")]),
                            StreamAppend(stream: shared, events: [event("shared \(index)")],
                                         expectedVersion: index.isMultiple(of: 2) ? .streamExists : .noStream),
                        ]
                        return (try? await log.append(parts)) != nil
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 8)
            #expect(try log.readStream(shared).count == 9)
            #expect(try log.eventCount() == 1 + 8 * 2)
            #expect(try log.verify().isIntact)
        }
    }
}
