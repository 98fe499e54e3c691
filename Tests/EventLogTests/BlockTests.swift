@testable import EventLog
import Foundation
import Testing
import TestSupport

/// Consecutive events of one stream appended together are sealed as one block (docs/FORMAT.md §5.8): one ciphertext,
/// each event still a record of its own at its position with its own header and leaf hash.
@Suite struct BlockTests {
    /// A stream of 120 events appended in one call, another stream's three events in the same transaction, and one event
    /// too large for a block: blocks of several records, and records on their own.
    private static func populated(_ temporary: TemporaryStore) async throws -> (log: EventLog, long: StreamID, texts: [String]) {
        let log = try temporary.create()
        let long = StreamID(), other = StreamID()
        let texts = (0..<120).map { "event \($0) of the long stream " + String(repeating: "words ", count: $0 % 40) }
        _ = try await log.append([StreamAppend(stream: long, events: texts.map { event($0) }),
                                  StreamAppend(stream: other, events: [event("a"), event("b"), event("c")])])
        try await log.append([event(String(repeating: "too large for a block ", count: 500))], to: other)
        return (log, long, texts)
    }

    private static func kinds(_ log: EventLog) throws -> [UInt8] {
        try log.environment.read { txn in
            try (0..<log.eventCount()).map { try #require(try txn.get(StoreLayout.events, StoreLayout.positionKey($0))).first! }
        }
    }

    @Test func eventsAppendedTogetherAreSealedAsBlocksAndReadBackWholeFromAnyPosition() async throws {
        try await withTemporaryStore { temporary in
            let (log, long, texts) = try await Self.populated(temporary)
            let kinds = try Self.kinds(log)
            #expect(kinds.filter { $0 == RecordHeader.Kind.blockHead.rawValue }.count >= 3, "\(kinds)")
            #expect(kinds[120..<123] == [2, 3, 3], "the other stream's three events are a block of their own")
            #expect(kinds.last == RecordHeader.Kind.single.rawValue, "an event larger than a block is sealed alone")
            #expect(try log.readStream(long).map { String(decoding: $0.data, as: UTF8.self) } == texts)
            // Reads that start and end inside blocks return exactly what they ask for.
            for start in [1, 37, 60, 119] {
                let read = try log.readStream(long, from: UInt64(start), maxCount: 7)
                #expect(read.map(\.streamNumber) == Array(UInt64(start)..<UInt64(min(start + 7, 120))))
                #expect(read.map { String(decoding: $0.data, as: UTF8.self) } == Array(texts[start..<min(start + 7, 120)]))
                #expect(try log.readAll(from: UInt64(start), maxCount: 3).map(\.position) == Array(UInt64(start)..<UInt64(start + 3)))
            }
            var visited: [UInt64] = []
            try log.forEachEvent(from: 50) { visited.append($0.position) }
            #expect(visited == Array(50..<124))
            #expect(try log.readStream(long, from: 119, direction: .backward, maxCount: 120).count == 120)
            let report = try log.verify()
            #expect(report.isIntact && report.checkedRecords == 124, "\(report.problems)")
            try log.close()
            #expect(try EventLog.verifyWithoutKey(at: temporary.storePath, options: .testing).isIntact)
        }
    }

    @Test func blocksTakeLessSpaceThanTheSameEventsSealedOneByOne() async throws {
        try await withTemporaryStore { temporary in
            let (log, _, _) = try await Self.populated(temporary)
            try await withTemporaryStore { other in
                var options = EventLogOptions.testing
                options.blockBodyBytes = 0
                let single = try other.create(options)
                try await single.append(try log.readAll().map { ProposedEvent(id: $0.id, type: $0.type, data: $0.data) }, to: StreamID())
                #expect(Set(try Self.kinds(single)) == [RecordHeader.Kind.single.rawValue])
                #expect(try log.statistics().recordBytes < single.statistics().recordBytes * 3 / 4)
            }
        }
    }

    enum Damage: String, CaseIterable, Sendable {
        case firstHeader, firstLeaf, recordCount, ciphertext, laterHeader, laterLeaf, distance, laterRecordRemoved, swapped
    }

    @Test(arguments: Damage.allCases)
    func damageToAnyPartOfABlockIsFoundByReadsAndBothVerificationsAndStaysInTheBlock(_ damage: Damage) async throws {
        try await withTemporaryStore { temporary in
            let (log, long, texts) = try await Self.populated(temporary)
            let kinds = try Self.kinds(log)
            let head = UInt64(try #require(kinds.firstIndex(of: 2, after: 10)))
            let end = UInt64(try #require(kinds[Int(head + 1)...].firstIndex { $0 != 3 }))
            try log.close()
            try MerkleTreeTests.tamper(temporary) { txn in
                func record(_ position: UInt64) throws -> [UInt8] { Array(try #require(try txn.get(StoreLayout.events, StoreLayout.positionKey(position)))) }
                func put(_ position: UInt64, _ bytes: [UInt8]) throws { try txn.put(StoreLayout.events, StoreLayout.positionKey(position), bytes) }
                func flip(_ position: UInt64, at offset: (Int) -> Int) throws {
                    var bytes = try record(position)
                    bytes[offset(bytes.count)] ^= 1
                    try put(position, bytes)
                }
                switch damage {
                case .firstHeader: try flip(head) { _ in 30 }
                case .firstLeaf: try flip(head) { _ in 70 }
                case .recordCount: try flip(head) { _ in 93 }
                case .ciphertext: try flip(head) { $0 - 20 }
                case .laterHeader: try flip(head + 2) { _ in 50 }
                case .laterLeaf: try flip(head + 2) { _ in 80 }
                case .distance: try flip(head + 2) { _ in 93 }
                case .laterRecordRemoved: try txn.delete(StoreLayout.events, StoreLayout.positionKey(head + 2))
                case .swapped:
                    let (a, b) = (try record(head + 1), try record(head + 2))
                    try put(head + 1, b)
                    try put(head + 2, a)
                }
            }
            let reopened = try temporary.open()
            let damaged = [.firstHeader, .firstLeaf, .recordCount, .ciphertext].contains(damage) ? head : head + 2
            let error = #expect(throws: EventLogError.self) { try reopened.readAll(from: damaged, maxCount: 1) }
            #expect(error?.code == .integrity)
            if damage != .laterRecordRemoved {
                #expect(throws: EventLogError.self) { try reopened.readStream(long) }
            }
            let report = try reopened.verify()
            #expect(!report.isIntact)
            #expect(report.problems.compactMap(\.position).allSatisfy { (head..<end).contains($0) }, "\(report.problems)")
            // Everything outside the damaged block still reads.
            let before = try reopened.readAll(from: 0, maxCount: Int(head))
            #expect(before.map { String(decoding: $0.data, as: UTF8.self) } == Array(texts[0..<Int(head)]))
            #expect(try reopened.readAll(from: end).count == 124 - Int(end))
            try reopened.close()
            #expect(!(try EventLog.verifyWithoutKey(at: temporary.storePath, options: .testing).isIntact),
                    "\(damage) is visible without the key")
        }
    }

    @Test func aBlockResealedForAnotherPositionWithMatchingLeavesIsRefusedByItsKeyAndByACheckpoint() async throws {
        try await withTemporaryStore { temporary in
            let (log, _, _) = try await Self.populated(temporary)
            let checkpoint = try log.signedCheckpoint()
            let verifierKey = log.checkpointVerifierKey
            let head = UInt64(try #require(try Self.kinds(log).firstIndex(of: 2, after: 10)))
            let storeID = log.storeID.bytes
            let keys = log.opener.keys
            try log.close()
            try MerkleTreeTests.tamper(temporary) { txn in
                let first = try #require(try txn.get(StoreLayout.events, StoreLayout.positionKey(head)))
                let unit = try SealedUnit.group([(head, first)], in: txn)[0].unit
                let records = unit.records.map { Array($0) }
                var cursor = NonceBaseCursor()
                let base = try #require(try cursor.base(for: head, in: txn))
                let header = try #require(records[0].withUnsafeBytes { RecordHeader(parsing: $0) })
                let key = try #require(try keys.key(header.keyID, in: txn))
                let headers = records.flatMap { $0[0..<RecordHeader.byteCount] }
                let sealed = Array(records[0][RecordLayout.blockCiphertextOffset...])
                var plaintext = [UInt8](repeating: 0, count: sealed.count - AEAD.tagBytes)
                var resealed = sealed
                base.withNonce(for: head) { nonce in
                    storeID.withUnsafeBytes { storeID in
                        headers.withUnsafeBytes { headers in
                            let opened = RecordLayout.withAdditionalData(storeID: storeID, position: head, headers: headers) { aad in
                                sealed.withUnsafeBytes { sealed in plaintext.withUnsafeMutableBytes { AEAD.open(sealed, additionalData: aad, nonce: nonce, key: key, into: $0) } }
                            }
                            #expect(opened, "the genuine block opens")
                            RecordLayout.withAdditionalData(storeID: storeID, position: head + 1, headers: headers) { aad in
                                plaintext.withUnsafeBytes { plaintext in resealed.withUnsafeMutableBytes { AEAD.seal(plaintext, additionalData: aad, nonce: nonce, key: key, into: $0) } }
                            }
                        }
                    }
                    let digest = SHA256.hash(Array(nonce) + resealed)
                    for (offset, record) in records.enumerated() {
                        var forged = record
                        if offset == 0 { forged.replaceSubrange(RecordLayout.blockCiphertextOffset..., with: resealed) }
                        var leaf = SHA256()
                        leaf.update([0] + [UInt8](bigEndian: head + UInt64(offset)) + Array(record[0..<RecordHeader.byteCount]) + digest)
                        forged.replaceSubrange(RecordLayout.leafOffset..<RecordLayout.leafEnd, with: leaf.digest())
                        try? txn.put(StoreLayout.events, StoreLayout.positionKey(head + UInt64(offset)), forged)
                    }
                }
                try MerkleNodes.extend(from: 0, to: 124, in: txn)
            }
            #expect(try EventLog.verifyWithoutKey(at: temporary.storePath, options: .testing).isIntact,
                    "without the key, consistent leaves are all there is to see")
            let anchored = try EventLog.verifyWithoutKey(at: temporary.storePath, anchor: try Checkpoint.verified(checkpoint.text, verifierKey: verifierKey),
                                                         options: .testing)
            #expect(anchored.anchorConsistent == false, "an auditor's checkpoint catches it without the key")
            let report = try temporary.open().verify()
            #expect(report.problems.contains { $0.position == head && $0.message.contains("does not authenticate") }, "\(report.problems)")
        }
    }

    @Test func aRecordInsideABlockIsProvedFromItsProvableRecordAloneAndStaysProvableAfterErasure() async throws {
        try await withTemporaryStore { temporary in
            let (log, long, _) = try await Self.populated(temporary)
            let head = UInt64(try #require(try Self.kinds(log).firstIndex(of: 2, after: 10)))
            let tree = try log.treeHead()
            for position in [head, head + 1, head + 3, 123] {
                let provable = try log.provableRecord(at: position)
                let digest = SHA256.hash(provable.nonce + Array(provable.record[RecordLayout.leafEnd...]))
                let leaf = SHA256.hash([0] + [UInt8](bigEndian: position) + Array(provable.record[0..<RecordHeader.byteCount]) + digest)
                #expect(leaf == Array(provable.record[RecordLayout.leafOffset..<RecordLayout.leafEnd]), "position \(position)")
                let path = try log.inclusionProof(position: position, treeSize: tree.size)
                #expect(MerkleProof.root(fromInclusion: path, leafHash: leaf, index: position, size: tree.size) == tree.rootHash)
            }
            try log.destroyKeys(of: [long])
            #expect(try log.readAll(skippingErased: true).count == 4)
            let report = try log.verify()
            #expect(report.isIntact && report.erasedRecords == 120, "\(report.problems)")
            #expect(try log.provableRecord(at: head + 1).leafHash == Array(try log.provableRecord(at: head + 1).record[60..<92]))
        }
    }

    @Test func aFormat3StoreMigratesWithoutChangeAndItsCheckpointVerifiesAfterBlocksAreAppended() async throws {
        try await withTemporaryStore { temporary in
            var options = EventLogOptions.testing
            options.blockBodyBytes = 0  // what a build of format 3 wrote: every record on its own
            let log = try temporary.create(options)
            try await log.append((0..<40).map { event("before \($0)") }, to: StreamID())
            let checkpoint = try log.signedCheckpoint()
            let verifierKey = log.checkpointVerifierKey
            try log.close()
            try MerkleTreeTests.tamper(temporary) { txn in
                try txn.put(StoreLayout.meta, StoreLayout.formatKey, [UInt8](bigEndian: UInt32(3)))
            }
            #expect(throws: EventLogError.self) { try temporary.open() }
            #expect(try EventLog.migrate(at: temporary.storePath, key: temporary.key, options: .testing).count == 1)
            let migrated = try temporary.open()
            try await migrated.append((0..<40).map { event("after \($0)") }, to: StreamID())
            #expect(try Self.kinds(migrated)[40] == RecordHeader.Kind.blockHead.rawValue)
            let report = try migrated.verify(anchor: try Checkpoint.verified(checkpoint.text, verifierKey: verifierKey))
            #expect(report.isIntact && report.anchorConsistent == true, "\(report.problems)")
        }
    }
}

private extension Array where Element == UInt8 {
    func firstIndex(of value: UInt8, after start: Int) -> Int? {
        self[start...].firstIndex(of: value)
    }
}
