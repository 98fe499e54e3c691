import EventLog
import Foundation
import TestSupport
import Testing

@Suite struct StorageTests {
    @Test(.enabled(if: TestBackend.isLMDB, "LMDB's map growth")) func theMapGrowsPastItsInitialSizeWithoutAnyFailure() async throws {
        try await withTemporaryStore { store in
            var options = EventLogOptions()
            options.mapHeadroom = 1 << 20  // 1 MiB
            let log = try store.create(options)
            let stream = StreamID()
            let chunk = (0..<32_000).map { _ in UInt8.random(in: 0...255) }  // incompressible
            for round in 0..<40 {
                try await log.append([ProposedEvent(type: "chunk", data: chunk + [UInt8(round)])], to: stream)
            }
            let statistics = try log.statistics()
            #expect(statistics.mapSize > 1 << 20)
            #expect(statistics.bytesOnDisk > 1_000_000)
            let events = try log.readStream(stream)
            #expect(events.count == 40)
            #expect(events.last?.data.last == 39)
            #expect(try log.verify().isIntact)
        }
    }

    @Test func aTrainedDictionaryShrinksSmallEventsAndOldRecordsStillRead() async throws {
        try await withTemporaryStore { store in
            var options = EventLogOptions.testing
            options.blockBodyBytes = 0  // each event sealed on its own, where a dictionary matters most
            let log = try store.create(options)
            func sample(_ index: Int) -> ProposedEvent {
                event(#"{"type":"transcript.partial","session":"5f0c2a9e-1d1b-4d7e-9a55-\#(index % 97)","segment":\#(index % 13),"revision":\#(index % 5),"text":"please schedule the follow up visit","start_ms":\#(index * 40),"end_ms":\#(index * 40 + 900)}"#,
                      type: "transcript.partial")
            }
            let before = StreamID(), after = StreamID()
            try await log.append((0..<200).map(sample), to: before)
            let plain = try log.statistics()
            try log.installDictionary(try EventLog.trainDictionary(samples: (0..<2000).map(sample)))
            try await log.append((200..<400).map(sample), to: after)
            let both = try log.statistics()
            let plainPerEvent = Double(plain.compressedPayloadBytes) / 200
            let dictionaryPerEvent = Double(both.compressedPayloadBytes - plain.compressedPayloadBytes) / 200
            #expect(dictionaryPerEvent < plainPerEvent * 0.7)
            #expect(try log.readStream(before).map(\.data) == (0..<200).map { sample($0).data })
            #expect(try log.readStream(after).map(\.data) == (200..<400).map { sample($0).data })
            try log.close()
            // The dictionary is kept (encrypted) in the store and found again on open.
            #expect(try store.open().readStream(after).count == 200)
        }
    }

    @Test func statisticsCountEventsStreamsAndBytes() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            try await log.append([event("a"), event("b")], to: StreamID())
            try await log.append([event(String(repeating: "x", count: 1000))], to: StreamID())
            let statistics = try log.statistics()
            #expect(statistics.events == 3)
            #expect(statistics.streams == 2)
            let bodyBytes: UInt64 = 2 * (1 + 4 + 1) + (1 + 4 + 1000)  // type length, type "note", data
            #expect(statistics.payloadBytes == bodyBytes)
            #expect(statistics.compressionRatio > 1)
            #expect(statistics.recordBytes > statistics.compressedPayloadBytes)
            #expect(statistics.mapUsed <= statistics.mapSize)
        }
    }

    @Test func verifyPassesOnAnIntactStoreAndCountsEveryRecord() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            for index in 0..<30 { try await log.append([event("\(index)")], to: StreamID()) }
            var progressCalls = 0
            let report = try log.verify { checked, total in
                progressCalls += 1
                #expect(checked <= total)
            }
            #expect(report.isIntact)
            #expect(report.checkedRecords == 30)
            #expect(progressCalls > 0)
        }
    }
}
