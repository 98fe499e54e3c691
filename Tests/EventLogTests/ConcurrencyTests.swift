import EventLog
import Foundation
import TestSupport
import Testing

@Suite struct ConcurrencyTests {
    @Test func sixtyFourConcurrentAppendersAllLandInOneConsistentOrder() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let streams = (0..<64).map { _ in StreamID() }
            let perAppender = 20
            let acknowledged = try await withThrowingTaskGroup(of: [(StreamID, UInt64, String)].self) { group in
                for (index, stream) in streams.enumerated() {
                    group.addTask {
                        var acks: [(StreamID, UInt64, String)] = []
                        for round in 0..<perAppender {
                            let text = "\(index)-\(round)"
                            let result = try await log.append([event(text)], to: stream, expectedVersion: .exact(UInt64(round)))
                            acks.append((stream, result.positions.lowerBound, text))
                        }
                        return acks
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(acknowledged.count == 64 * perAppender)
            let all = try log.readAll()
            #expect(all.map(\.position) == Array(0..<UInt64(64 * perAppender)))
            let byPosition = Dictionary(uniqueKeysWithValues: all.map { ($0.position, $0) })
            for (stream, position, text) in acknowledged {
                #expect(byPosition[position]?.stream == stream)
                #expect(byPosition[position]?.text == text)
            }
            for (index, stream) in streams.enumerated() {
                #expect(try log.readStream(stream).map(\.text) == (0..<perAppender).map { "\(index)-\($0)" })
            }
            #expect(try log.verify().isIntact)
        }
    }

    @Test func appendersToTheSameStreamAreSerialisedWithoutLoss() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<100 {
                    group.addTask { try await log.append([event("\(index)")], to: stream) }
                }
                try await group.waitForAll()
            }
            let events = try log.readStream(stream)
            #expect(events.map(\.streamNumber) == Array(0..<100))
            #expect(Set(events.map(\.text)) == Set((0..<100).map { "\($0)" }))
        }
    }

    @Test func readersSeeConsistentSnapshotsWhileWritersAppend() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for batch in 0..<50 {
                        try await log.append((0..<10).map { event("\(batch * 10 + $0)") }, to: stream)
                    }
                }
                group.addTask {
                    for _ in 0..<200 {
                        let events = try log.readStream(stream)
                        // Appends are atomic: a reader sees whole batches only, in order.
                        #expect(events.count % 10 == 0)
                        #expect(events.map(\.text) == (0..<events.count).map { "\($0)" })
                        await Task.yield()
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}
