@testable import EventLog
import Foundation
import TestSupport
import Testing

/// The stream index lags the log by up to 2,048 events (256 on PostgreSQL); readers complete it from the tail.
@Suite struct StreamIndexTests {
    /// Appends `rounds` single events round-robin to three streams and returns what each should hold.
    private func interleave(_ log: EventLog, _ streams: [StreamID], rounds: Int) async throws -> [StreamID: [String]] {
        var expected: [StreamID: [String]] = [:]
        for round in 0..<rounds {
            let stream = streams[round % streams.count]
            let text = "\(round)"
            try await log.append([event(text)], to: stream, expectedVersion: .exact(UInt64(expected[stream, default: []].count)))
            expected[stream, default: []].append(text)
        }
        return expected
    }

    @Test func readsAcrossTheIndexedPartAndTheTailSeeEveryEventInOrder() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let streams = [StreamID(), StreamID(), StreamID()]
            // 5,000 events: the index is folded in several times (twice on LMDB) and a tail remains.
            let expected = try await interleave(log, streams, rounds: 5000)
            for stream in streams {
                let all = try #require(expected[stream])
                #expect(try log.readStream(stream).map(\.text) == all)
                #expect(try log.readStream(stream, from: 600, maxCount: 300).map(\.text) == Array(all[600..<900]))
                // The same through the decoding threads, whole and in ranges across the indexed part and the tail.
                #expect(try log.readStream(stream) { $0.text } == all)
                #expect(try log.readStream(stream, from: 1500, maxCount: 200) { $0.text } == Array(all[1500...]))
                #expect(try log.readStream(stream, from: 100, maxCount: 1500) { "\($0.streamNumber):\($0.text)" }
                        == (100..<1600).map { "\($0):\(all[$0])" })
                #expect(try log.readStream(stream, direction: .backward, maxCount: 500).map(\.text) == Array(all.suffix(500).reversed()))
                #expect(try log.readStream(stream, from: 1000, direction: .backward, maxCount: 5).map(\.text)
                        == Array(all[996...1000].reversed()))
                let metadata = try #require(try log.streamMetadata(stream))
                #expect(metadata.version == UInt64(all.count))
                #expect(metadata.lastPosition == (try log.readStream(stream, direction: .backward, maxCount: 1)).first?.position)
            }
            #expect(try log.verify().isIntact)
        }
    }

    @Test func aStoreReadsTheSameBeforeAndAfterItsTailIsIndexed() async throws {
        try await withTemporaryStore { store in
            let streams = [StreamID(), StreamID()]
            var before: [[RecordedEvent]] = []
            do {
                let log = try store.create()
                _ = try await interleave(log, streams, rounds: 2100)
                before = try streams.map { try log.readStream($0) }
                #expect(try log.verify().isIntact)
                try log.close()  // folds the tail into the index
            }
            let reopened = try store.open()
            #expect(try streams.map { try reopened.readStream($0) } == before)
            #expect(try reopened.verify().isIntact)
            // Versions carry on from the index after reopening.
            try await reopened.append([event("next")], to: streams[0], expectedVersion: .exact(1050))
            #expect(try reopened.streamMetadata(streams[0])?.version == 1051)
        }
    }

    @Test func aStreamStartedInTheTailHasMetadataBeforeItsRowIsWritten() async throws {
        try await withTemporaryStore { store in
            var options = EventLogOptions()
            options.clock = { 1_800_000_000_000 }
            let log = try store.create(options)
            let stream = StreamID()
            try await log.append([event("a")], to: StreamID())
            try await log.append([event("b"), event("c")], to: stream, keyScope: .audit)
            let metadata = try #require(try log.streamMetadata(stream))
            #expect(metadata.version == 2)
            #expect(metadata.firstPosition == 1)
            #expect(metadata.lastPosition == 2)
            #expect(metadata.createdAtMilliseconds == 1_800_000_000_000)
            #expect(metadata.keyID == 1)  // the audit key
        }
    }
    @Test func theIndexOfEventIDsAgreesWithTheRecordsAndVerifyFindsAnEntryMissingOrMisplaced() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let streams = [StreamID(), StreamID()]
            _ = try await interleave(log, streams, rounds: 3000)  // folded at least once on every backend
            let first = try log.readStream(streams[0], maxCount: 2)
            #expect(try log.storedPositions(of: streams[0], withIDs: Set(first.map(\.id))) == Dictionary(uniqueKeysWithValues: first.map { ($0.id, $0.position) }))
            #expect(try log.verify().isIntact)

            // The second event's entry names the first event's position.
            let key = StoreLayout.eventIDKey(streams[0].uuid, first[1].id)
            try log.environment.write { txn in
                try txn.put(StoreLayout.eventIDs, key, [UInt8](bigEndian: UInt64(1)) + [UInt8](bigEndian: first[0].position))
            }
            let misplaced = try log.verify()
            #expect(misplaced.problems.contains { $0.position == first[1].position && $0.description.contains("event-ids places") })
            try log.environment.write { txn in _ = try txn.delete(StoreLayout.eventIDs, key) }
            let missing = try log.verify()
            #expect(missing.problems.contains { $0.position == first[1].position && $0.description.contains("missing from event-ids") })
            #expect(missing.problems.contains { $0.description.contains("event-ids holds") } == false, "every entry left names its record")
        }
    }

    /// Every way the stream index can disagree with the records is a problem `verify` reports, with and without
    /// the key: a run pointing at another record, a run missing, a run covering more than its stream holds, a
    /// run reaching past the indexed part of the log, a stream row missing. Put back, the store verifies again.
    @Test func verifyFindsEveryDisagreementOfTheStreamIndexWithTheRecords() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let batch = StreamID()
            try await log.append((0..<100).map { event("batch \($0)") }, to: batch)  // one run of 100
            let single = [StreamID(), StreamID()]
            _ = try await interleave(log, single, rounds: 3000)  // runs of one event, folded at least once everywhere
            let indexedThrough = try log.environment.read { try StreamIndex.indexedThrough(in: $0) }
            let events = try log.readStream(single[0], maxCount: 3)
            #expect(indexedThrough > events[2].position + 1)
            #expect(try log.verify().isIntact)

            func damaged(_ table: String, _ key: [UInt8], _ value: [UInt8]?, expecting what: String) throws {
                let original = try log.environment.read { try $0.get(table, key).map(Array.init) }
                try log.environment.write { txn in
                    if let value { try txn.put(table, key, value) } else { _ = try txn.delete(table, key) }
                }
                for report in [try log.verify(), try EventLog.verifyWithoutKey(at: store.storePath, options: .testing)] {
                    #expect(report.problems.contains { $0.message.contains(what) }, "\(what): \(report.problems.map(\.message))")
                }
                try log.environment.write { txn in
                    if let original { try txn.put(table, key, original) } else { _ = try txn.delete(table, key) }
                }
            }
            func run(_ position: UInt64, count: UInt32) -> [UInt8] { [UInt8](bigEndian: position) + [UInt8](bigEndian: count) }

            try damaged(StoreLayout.streamRuns, StreamRun.key(single[0], 1), run(events[0].position, count: 1),
                        expecting: "number 1 at position \(events[0].position)")
            try damaged(StoreLayout.streamRuns, StreamRun.key(single[0], 2), nil, expecting: "stream \(single[0])")
            try damaged(StoreLayout.streamRuns, StreamRun.key(batch, 0), run(0, count: 101), expecting: "stream \(batch)")
            try damaged(StoreLayout.streamRuns, StreamRun.key(batch, 0), run(indexedThrough - 50, count: 100),
                        expecting: "past the indexed part of the log")
            try damaged(StoreLayout.streams, Array(single[1].uuid.bytes), nil, expecting: "stream rows exist")
            #expect(try log.verify().isIntact)
            #expect(try EventLog.verifyWithoutKey(at: store.storePath, options: .testing).isIntact)
        }
    }
}
