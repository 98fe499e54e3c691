import EventLog
import Foundation
import TestSupport
import Testing

/// Damage done to the data file directly, as an attacker or a failing disk would.
@Suite(.serialized) struct TamperingTests {
    /// Writes twelve distinctive events, one stream each, closes the log and returns their texts.
    private func populatedStore(_ store: TemporaryStore) async throws -> [String] {
        let log = try store.create()
        var texts: [String] = []
        for index in 0..<12 {
            let text = "event number \(index) " + String(repeating: "padding ", count: 10)
            texts.append(text)
            try await log.append([event(text)], to: StreamID())
        }
        try log.close()
        return texts
    }

    /// Byte offsets of every copy of a record in data.mdb, found by its (unique, clear) event id preceded
    /// by its stream id as the clear header has them (the event-ids index has the same two ids side by
    /// side). LMDB copies a page on write and leaves the old version in a free page, so a record can be
    /// there more than once; damage is done to every copy, so the live one is surely hit.
    private func recordOffsets(_ store: TemporaryStore, of event: RecordedEvent) throws -> [Int] {
        let file = try Data(contentsOf: URL(fileURLWithPath: store.dataFile))
        let id = withUnsafeBytes(of: event.id.uuid) { Data($0) }
        let stream = withUnsafeBytes(of: event.stream.uuid.uuid) { Data($0) }
        var offsets: [Int] = []
        var searchFrom = file.startIndex
        while let range = file.range(of: id, in: searchFrom..<file.endIndex) {
            // The event id sits at offset 40 of the record header, the stream id at offset 8.
            let offset = range.lowerBound - 40
            if offset >= 16, file[(range.lowerBound - 32)..<(range.lowerBound - 16)] == stream, isInNodeArea(file, offset - 16) {
                offsets.append(offset)
            }
            searchFrom = range.upperBound
        }
        try #require(!offsets.isEmpty)
        return offsets
    }

    /// Whether `node` lies in its page's node area (at or past the page header's `mp_upper`, little-endian
    /// at byte 14) of a leaf page (`P_LEAF`, 0x02, in the flags at byte 10): a node of that page, and not
    /// stale bytes in the free space of a page reused by another database since.
    private func isInNodeArea(_ file: Data, _ node: Int) -> Bool {
        let page = node / 4096 * 4096
        let flags = Int(file[page + 10]) | Int(file[page + 11]) << 8
        let upper = Int(file[page + 14]) | Int(file[page + 15]) << 8
        return flags & 0x02 != 0 && node - page >= upper
    }

    /// The length of the record at `offset`, from its LMDB leaf node header (`mn_lo u16 | mn_hi u16 |
    /// flags u16 | key size u16 | key | data`, little-endian), which sits before the 8-byte key.
    private func recordLength(_ file: Data, at offset: Int) -> Int {
        let node = offset - 16
        return Int(file[node]) | Int(file[node + 1]) << 8 | Int(file[node + 2]) << 16 | Int(file[node + 3]) << 24
    }

    /// Offsets of the copies of two records that share a page: (first, second) pairs.
    private func pairedOffsets(_ store: TemporaryStore, _ a: RecordedEvent, _ b: RecordedEvent) throws -> [(Int, Int)] {
        let second = try recordOffsets(store, of: b)
        return try recordOffsets(store, of: a).compactMap { offset in
            second.first { $0 / 4096 == offset / 4096 }.map { (offset, $0) }
        }
    }

    private func modifyDataFile(_ store: TemporaryStore, _ change: (inout Data) throws -> Void) throws {
        // Only ever within a record: LMDB has no page checksums, and damage to its own node headers
        // can crash it (outside what record checks can catch; see docs/FORMAT.md).
        var file = try Data(contentsOf: URL(fileURLWithPath: store.dataFile))
        try change(&file)
        try file.write(to: URL(fileURLWithPath: store.dataFile))
    }

    enum Part: String, CaseIterable, Sendable {
        case format, streamNumber, leafHash, ciphertext, tag

        func offset(recordLength: Int) -> Int {
            switch self {
            case .format: 0
            case .streamNumber: 30
            case .leafHash: 70
            case .ciphertext: 95
            case .tag: recordLength - 1
            }
        }
    }

    @Test(.enabled(if: TestBackend.isLMDB, "edits LMDB's data file"), arguments: Part.allCases)
    func aFlippedByteAnywhereInARecordIsDetectedByReadAndVerify(part: Part) async throws {
        try await withTemporaryStore { store in
            _ = try await populatedStore(store)
            let victim = try store.open().readAll()[5]
            let offsets = try recordOffsets(store, of: victim)
            try modifyDataFile(store) { file in
                for offset in offsets { file[offset + part.offset(recordLength: recordLength(file, at: offset))] ^= 0x01 }
            }

            let log = try store.open()
            let error = #expect(throws: EventLogError.self) { try log.readAll(from: 5, maxCount: 1) }
            #expect(error?.code == .integrity)
            #expect(error?.position == 5)
            let report = try log.verify()
            #expect(report.problems.first?.position == 5)
            #expect(report.problems.allSatisfy { $0.position == nil || $0.position == 5 })
            if part != .format && part != .streamNumber {
                // Damage past the clear header: exactly one problem, nothing cascades.
                #expect(report.problemCount == 1)
            }
            // The neighbours are untouched and still read.
            #expect(try log.readAll(from: 6).count == 6)
        }
    }

    @Test(.enabled(if: TestBackend.isLMDB, "edits LMDB's data file")) func aSwappedPairOfRecordsIsDetected() async throws {
        try await withTemporaryStore { store in
            _ = try await populatedStore(store)
            let events = try store.open().readAll()
            try #require(events.count > 4)
            let pairs = try pairedOffsets(store, events[3], events[4])
            try #require(!pairs.isEmpty)
            try modifyDataFile(store) { file in
                for (a, b) in pairs {
                    let length = recordLength(file, at: a)
                    try #require(length == recordLength(file, at: b), "the two records differ in length")
                    let first = file[a..<(a + length)]
                    file.replaceSubrange(a..<(a + length), with: file[b..<(b + length)])
                    file.replaceSubrange(b..<(b + length), with: first)
                }
            }
            let log = try store.open()
            for position in [UInt64(3), 4] {
                let error = #expect(throws: EventLogError.self) { try log.readAll(from: position, maxCount: 1) }
                #expect(error?.position == position)
            }
            let report = try log.verify()
            #expect(Set(report.problems.compactMap(\.position)).isSuperset(of: [3, 4]))
        }
    }

    @Test(.enabled(if: TestBackend.isLMDB, "edits LMDB's data file")) func aRecordCopiedOverAnotherPositionIsDetected() async throws {
        try await withTemporaryStore { store in
            _ = try await populatedStore(store)
            let events = try store.open().readAll()
            try #require(events.count > 8)
            let pairs = try pairedOffsets(store, events[2], events[8])
            try #require(!pairs.isEmpty)
            try modifyDataFile(store) { file in
                for (source, target) in pairs {
                    let length = recordLength(file, at: source)
                    try #require(length == recordLength(file, at: target), "the two records differ in length")
                    file.replaceSubrange(target..<(target + length), with: file[source..<(source + length)])
                }
            }
            let log = try store.open()
            #expect(try log.readAll(from: 2, maxCount: 1).first?.id == events[2].id)
            let error = #expect(throws: EventLogError.self) { try log.readAll(from: 8, maxCount: 1) }
            #expect(error?.code == .integrity)
            #expect(error?.position == 8)
            #expect(try log.verify().problems.contains { $0.position == 8 })
        }
    }

    @Test(.enabled(if: TestBackend.isLMDB, "edits LMDB's data file")) func aRecordFromAnotherStoreIsRejected() async throws {
        try await withTemporaryStore { store in
            // Two stores under the same key: a record moved between them must not authenticate.
            _ = try await populatedStore(store)
            let otherPath = store.root.appendingPathComponent("other").path
            let other = try EventLog.create(at: otherPath, key: store.key, options: .testing)
            let text = "event number 5 " + String(repeating: "padding ", count: 10)
            for _ in 0..<6 { try await other.append([event(text)], to: StreamID()) }
            let foreign = try other.readAll()[5]
            try other.close()
            let foreignFile = try Data(contentsOf: URL(fileURLWithPath: otherPath + "/data.mdb"))
            let foreignID = withUnsafeBytes(of: foreign.id.uuid) { Data($0) }
            let foreignOffset = try #require(foreignFile.range(of: foreignID)).lowerBound - 40
            let victim = try store.open().readAll()[5]
            let targets = try recordOffsets(store, of: victim)
            let foreignLength = recordLength(foreignFile, at: foreignOffset)
            try modifyDataFile(store) { file in
                for target in targets {
                    try #require(recordLength(file, at: target) == foreignLength, "the two records differ in length")
                    file.replaceSubrange(target..<(target + foreignLength), with: foreignFile[foreignOffset..<(foreignOffset + foreignLength)])
                }
            }
            let error = #expect(throws: EventLogError.self) { try store.open().readAll(from: 5, maxCount: 1) }
            #expect(error?.position == 5)
        }
    }

    @Test func noPayloadTextReachesAnyFileOfTheStore() async throws {
        try await withTemporaryStore { store in
            let markers = ["ZEBRAMARKER", "Quixotic-Marmalade", "ПРИВЕТМАРКЕР", "マーカー語"]
            var options = EventLogOptions()
            options.mapHeadroom = 1 << 20
            let log = try store.create(options)
            let samples = (0..<500).map { index in
                event("{\"text\":\"sample \(index) of a dictation\",\"n\":\(index)}", type: "transcript.committed")
            }
            try log.installDictionary(try EventLog.trainDictionary(samples: samples))
            for marker in markers {
                // Small (dictionary), large (plain zstd) and incompressible-looking payloads.
                try await log.append([event("the word \(marker) was said", type: "transcript.committed")], to: StreamID())
                try await log.append([event(String(repeating: "\(marker) ", count: 400))], to: StreamID())
                try await log.append([event(marker)], to: StreamID(), keyScope: .audit)
            }
            try log.close()
            let stored = try store.storedContents()
            #expect(stored.contains { $0.name == (TestBackend.isLMDB ? "data.mdb" : "events") && $0.bytes.count > 1000 })
            for (file, contents) in stored {
                for marker in markers {
                    #expect(contents.range(of: Data(marker.utf8)) == nil, "\(marker) found in \(file)")
                }
            }
        }
    }
}
