@testable import EventLog
import Foundation
import TestSupport
import Testing

@Suite struct AppendAndReadTests {
    @Test func defaultEventAndStreamIdsAreDistinctRandomVersion4UUIDs() {
        let ids = (0..<10_000).map { _ in ProposedEvent(type: "t", data: []).id } + (0..<1_000).map { _ in StreamID().uuid }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.uuid.6 >> 4 == 4 && $0.uuid.8 >> 6 == 2 }, "version 4, RFC 9562 variant")
    }

    @Test func appendedEventsReadBackInStreamOrderWithTheirPositions() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            let first = try await log.append([event("a"), event("b")], to: stream, expectedVersion: .noStream)
            let second = try await log.append([event("c")], to: stream, expectedVersion: .exact(2))
            #expect(first.positions == 0..<2)
            #expect(second.positions == 2..<3)
            #expect(second.nextExpectedVersion == 3)

            let events = try log.readStream(stream)
            #expect(events.map(\.text) == ["a", "b", "c"])
            #expect(events.map(\.streamNumber) == [0, 1, 2])
            #expect(events.map(\.position) == [0, 1, 2])
            #expect(events.allSatisfy { $0.stream == stream && $0.type == "note" })
        }
    }

    @Test func aLongScanAcrossManyTransactionsReadsEveryEventOnceInOrder() async throws {
        // 40 transactions (40 nonce bases, more than a base lookup learns at once) of 120 events over
        // three streams: the scan crosses many ranges, each read on either thread, and bases.
        try await withTemporaryStore { store in
            let log = try store.create()
            let streams = (0..<3).map { _ in StreamID() }
            var expected: [String] = []
            for transaction in 0..<40 {
                let texts = (0..<120).map { "t\(transaction) e\($0)" }
                try await log.append(streams.indices.map { index in
                    StreamAppend(stream: streams[index], events: texts.enumerated().filter { $0.offset % 3 == index }.map { event($0.element) })
                })
                for index in streams.indices { expected += texts.enumerated().filter { $0.offset % 3 == index }.map(\.element) }
            }
            var seen: [(position: UInt64, text: String)] = []
            try log.forEachEvent { seen.append(($0.position, $0.text)) }
            #expect(seen.map(\.text) == expected)
            #expect(seen.map(\.position) == Array(0..<UInt64(expected.count)))
            var fromMiddle: [String] = []
            try log.forEachEvent(from: 2_500) { fromMiddle.append($0.text) }
            #expect(fromMiddle == Array(expected[2_500...]))
            #expect(try log.readStream(streams[1]).map(\.text) == expected.enumerated().filter { ($0.offset / 40) % 3 == 1 }.map(\.element))
        }
    }

    /// A scan opens ranges ahead on another thread while its reader works on this one: a reader that stops by throwing
    /// must leave nothing opening after the scan returns, and a read that spans ranges must end where it was asked to.
    @Test func aScanStoppedByItsReaderMidwayThrowsItsErrorAndLeavesTheStoreReadable() async throws {
        struct Enough: Error {}
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            for batch in 0..<5 {
                try await log.append((0..<1_000).map { event("b\(batch) e\($0)") }, to: stream)
            }
            var seen = 0
            #expect(throws: Enough.self) {
                try log.forEachEvent { _ in
                    guard seen < 1_500 else { throw Enough() }
                    seen += 1
                }
            }
            #expect(seen == 1_500)
            let spanning = try log.readAll(from: 100, maxCount: 2_000)
            #expect(spanning.map(\.position) == Array(100..<2_100))
            try log.close()
            let reopened = try store.open()
            var count = 0
            try reopened.forEachEvent { _ in count += 1 }
            #expect(count == 5_000)
        }
    }

    /// Records are never removed, so a position without one below the log's end is damage: a scan hands on every event
    /// before it, then fails there, naming it, whichever thread read its range; a short read across it fails too.
    @Test func aRecordMissingFromTheMiddleOfTheLogFailsAScanThereAfterEveryEventBeforeIt() async throws {
        try await withTemporaryStore { store in
            var options = EventLogOptions()
            options.blockBodyBytes = 0  // records on their own: nothing but the gap itself shows the damage
            let log = try store.create(options)
            let stream = StreamID()
            for batch in 0..<5 {
                try await log.append((0..<1_000).map { event("b\(batch) e\($0)") }, to: stream)
            }
            try log.close()
            try MerkleTreeTests.tamper(store) { txn in try txn.delete(StoreLayout.events, StoreLayout.positionKey(3_333)) }
            let reopened = try store.open(options)
            var seen: [UInt64] = []
            let error = #expect(throws: EventLogError.self) { try reopened.forEachEvent { seen.append($0.position) } }
            #expect(error?.code == .integrity)
            #expect(error?.position == 3_333)
            #expect(seen == Array(0..<3_333))
            #expect(throws: EventLogError.self) { try reopened.readAll(from: 3_300, maxCount: 100) }
            #expect(try reopened.readAll(from: 3_334).map(\.position) == Array(3_334..<5_000))
        }
    }

    /// A replay of an hour reads the whole store once; what it has read must not stay resident.
    @Test func mappedPagesLetGoOfStopBeingResidentAndReadBackTheSame() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            var generator = SystemRandomNumberGenerator()
            let texts = (0..<400).map { _ in String((0..<4_000).map { _ in Character(UnicodeScalar(UInt8.random(in: 97...122, using: &generator))) }) }
            try await log.append(texts.map { event($0) }, to: stream, expectedVersion: .noStream)
            #expect(try log.readStream(stream).map(\.text) == texts)
            #if os(Linux)
            if TestBackend.isLMDB {
                let dataFile = URL(fileURLWithPath: store.dataFile).resolvingSymlinksInPath().path
                let touched = try Self.residentKilobytes(of: dataFile)
                #expect(touched > 400, "the read touched the map: \(touched) KB")
                log.releaseMappedPages()
                #expect(try Self.residentKilobytes(of: dataFile) == 0)
            }
            #endif
            log.releaseMappedPages()
            #expect(try log.readStream(stream).map(\.text) == texts, "read again from the page cache")
        }
    }

    /// Resident kilobytes of this process's mappings of `path` (/proc/self/smaps).
    static func residentKilobytes(of path: String) throws -> Int {
        var inFile = false, total = 0
        // Read to the end: /proc files report a size of 0, and a read sized from that stops short.
        let smaps = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/smaps")).readToEnd() ?? Data()
        for line in String(decoding: smaps, as: UTF8.self).split(separator: "\n") {
            if let first = line.first, first.isHexDigit, line.split(separator: " ").first?.contains("-") == true {
                inFile = line.hasSuffix(" " + path)
            } else if inFile, line.hasPrefix("Rss:") {
                total += Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
            }
        }
        return total
    }

    @Test func eventIdTypeAndBinaryDataSurviveTheRoundTrip() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let id = UUID()
            let data = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }
            let typeName = "transcript.committed ✓"
            try await log.append([ProposedEvent(id: id, type: typeName, data: data), ProposedEvent(type: "empty", data: [])],
                                 to: StreamID())
            let events = try log.readAll()
            try #require(events.count == 2)
            #expect(events[0].id == id)
            #expect(events[0].type == typeName)
            #expect(events[0].data == data)
            #expect(events[1].data.isEmpty)
        }
    }

    @Test func streamsInterleaveInTheGlobalLogButReadSeparately() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let a = StreamID(), b = StreamID()
            try await log.append([event("a0")], to: a)
            try await log.append([event("b0"), event("b1")], to: b)
            try await log.append([event("a1")], to: a)
            #expect(try log.readStream(a).map(\.text) == ["a0", "a1"])
            #expect(try log.readStream(b).map(\.text) == ["b0", "b1"])
            #expect(try log.readAll().map(\.text) == ["a0", "b0", "b1", "a1"])
            #expect(try log.readAll(from: 2).map(\.text) == ["b1", "a1"])
            #expect(try log.readAll(from: 1, maxCount: 2).map(\.text) == ["b0", "b1"])
        }
    }

    @Test func streamsReadForwardAndBackwardFromAnyNumberAcrossAppends() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            let other = StreamID()
            for chunk in 0..<4 {
                try await log.append((0..<3).map { event("\(chunk * 3 + $0)") }, to: stream)
                try await log.append([event("x")], to: other)
            }
            #expect(try log.readStream(stream, from: 4).map(\.text) == ["4", "5", "6", "7", "8", "9", "10", "11"])
            #expect(try log.readStream(stream, from: 4, maxCount: 3).map(\.text) == ["4", "5", "6"])
            #expect(try log.readStream(stream, direction: .backward, maxCount: 4).map(\.text) == ["11", "10", "9", "8"])
            #expect(try log.readStream(stream, from: 3, direction: .backward).map(\.text) == ["3", "2", "1", "0"])
            #expect(try log.readStream(stream, from: 12).isEmpty)
            #expect(try log.readStream(StreamID()).isEmpty)
        }
    }

    @Test func consecutiveAppendsToOneStreamReadAsOneSequenceFromAnyPoint() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            for index in 0..<10 { try await log.append([event("\(index)")], to: stream, expectedVersion: .exact(UInt64(index))) }
            try await log.append([event("other")], to: StreamID())
            for index in 10..<13 { try await log.append([event("\(index)")], to: stream) }
            #expect(try log.readStream(stream, from: 8, maxCount: 4).map(\.text) == ["8", "9", "10", "11"])
            #expect(try log.readStream(stream, from: 11, direction: .backward, maxCount: 3).map(\.text) == ["11", "10", "9"])
            let metadata = try #require(try log.streamMetadata(stream))
            #expect(metadata.version == 13)
            #expect(metadata.firstPosition == 0)
            #expect(metadata.lastPosition == 13)
            #expect(try log.verify().isIntact)
        }
    }

    @Test func streamMetadataTellsVersionPositionsAndKey() async throws {
        try await withTemporaryStore { store in
            var options = EventLogOptions()
            options.clock = { 1_700_000_000_123 }
            let log = try store.create(options)
            let stream = StreamID()
            try await log.append([event("x")], to: StreamID())
            try await log.append([event("a"), event("b")], to: stream)
            let metadata = try #require(try log.streamMetadata(stream))
            #expect(metadata.version == 2)
            #expect(metadata.firstPosition == 1)
            #expect(metadata.lastPosition == 2)
            #expect(metadata.createdAtMilliseconds == 1_700_000_000_123)
            #expect(try log.readStream(stream).first?.recordedAtMilliseconds == 1_700_000_000_123)
            #expect(try log.streamMetadata(StreamID()) == nil)
        }
    }

    @Test func eachStreamGetsItsOwnDataKeyAndAuditStreamsShareTheAuditKey() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let a = StreamID(), b = StreamID(), audit1 = StreamID(), audit2 = StreamID()
            try await log.append([event("a")], to: a)
            try await log.append([event("b")], to: b)
            try await log.append([event("c")], to: audit1, keyScope: .audit)
            try await log.append([event("d")], to: audit2, keyScope: .audit)
            let keyA = try #require(try log.streamMetadata(a)).keyID
            let keyB = try #require(try log.streamMetadata(b)).keyID
            let keyAudit1 = try #require(try log.streamMetadata(audit1)).keyID
            let keyAudit2 = try #require(try log.streamMetadata(audit2)).keyID
            #expect(keyA != keyB)
            #expect(keyAudit1 == keyAudit2)
            #expect(keyAudit1 != keyA && keyAudit1 != keyB)
            #expect(try log.statistics().dataKeys == 3)
        }
    }

    @Test func eventsSurviveClosingAndReopening() async throws {
        try await withTemporaryStore { store in
            let stream = StreamID()
            do {
                let log = try store.create()
                try await log.append([event("kept")], to: stream)
                try log.close()
            }
            let reopened = try store.open()
            #expect(try reopened.readStream(stream).map(\.text) == ["kept"])
            try await reopened.append([event("more")], to: stream, expectedVersion: .exact(1))
            #expect(try reopened.readAll().map(\.position) == [0, 1])
        }
    }

    @Test(arguments: [0, 256])
    func invalidEventTypesAreRefusedAndNothingIsAppended(typeLength: Int) async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            let stream = StreamID()
            let bad = ProposedEvent(type: String(repeating: "t", count: typeLength), data: [])
            let error = await #expect(throws: EventLogError.self) {
                try await log.append([event("fine"), bad], to: stream)
            }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("event 1") == true)
            #expect(try log.eventCount() == 0)
        }
    }

    @Test func appendsAfterCloseAreRefused() async throws {
        try await withTemporaryStore { store in
            let log = try store.create()
            try log.close()
            let error = await #expect(throws: EventLogError.self) { try await log.append([event("late")], to: StreamID()) }
            #expect(error?.code == .closed)
        }
    }
}
