@testable import EventLog
import Foundation
import Testing
import TestSupport

/// Each binding of a record tested on its own. The record at one position is sealed again with the
/// right data key and the right nonce, its leaf hash and the tree's nodes recomputed to match, but
/// with the associated data of another place: another position, or another store. Everything else
/// checks out, so only that part of the associated data can refuse the record: each case fails when
/// that one binding is left out of the associated data.
@Suite struct BindingIsolationTests {
    enum Place: String, CaseIterable, Sendable {
        case anotherPosition, anotherStore
    }

    @Test(arguments: Place.allCases)
    func aRecordSealedForAnotherPlaceWithEverythingElseRightDoesNotOpen(_ place: Place) async throws {
        try await withTemporaryStore { temporary in
            let (log, _) = try await MerkleTreeTests.store(temporary, count: 300, blockBodyBytes: 0)  // BlockTamperTests reseal blocks
            let target: UInt64 = 100
            let storeID = log.storeID.bytes
            let keys = log.opener.keys
            let forged: [UInt8] = try log.environment.read { txn in
                var record = try KeylessVerificationTests.record(target, in: txn)
                let header = try #require(record.withUnsafeBytes { RecordHeader(parsing: $0) })
                let key = try #require(try keys.key(header.keyID, in: txn))
                var cursor = NonceBaseCursor()
                let nonce = try #require(try cursor.base(for: target, in: txn)).withNonce(for: target) { Array($0) }
                let headerBytes = Array(record[0..<RecordHeader.byteCount])
                let sealed = Array(record[RecordLayout.ciphertextOffset...])
                var plaintext = [UInt8](repeating: 0, count: sealed.count - AEAD.tagBytes)
                let opened = Self.withAssociatedData(storeID, target, headerBytes) { aad in
                    sealed.withUnsafeBytes { sealed in nonce.withUnsafeBytes { nonce in plaintext.withUnsafeMutableBytes { out in
                        AEAD.open(sealed, additionalData: aad, nonce: nonce, key: key, into: out)
                    } } }
                }
                try #require(opened, "the genuine record opens with its own associated data")
                let (otherStore, otherPosition) = place == .anotherStore ? (UUID().bytes, target) : (storeID, target + 1)
                var resealed = [UInt8](repeating: 0, count: sealed.count)
                Self.withAssociatedData(otherStore, otherPosition, headerBytes) { aad in
                    plaintext.withUnsafeBytes { plaintext in nonce.withUnsafeBytes { nonce in resealed.withUnsafeMutableBytes { out in
                        AEAD.seal(plaintext, additionalData: aad, nonce: nonce, key: key, into: out)
                    } } }
                }
                #expect(resealed != sealed)
                record.replaceSubrange(RecordLayout.ciphertextOffset..., with: resealed)
                let leaf = ProvableRecord(position: target, record: record, nonce: nonce).leafHash
                record.replaceSubrange(RecordLayout.leafOffset..<RecordLayout.ciphertextOffset, with: leaf)
                return record
            }
            try log.close()
            try MerkleTreeTests.tamper(temporary) { txn in
                try txn.put(StoreLayout.events, StoreLayout.positionKey(target), forged)
                try MerkleNodes.extend(from: 0, to: 300, in: txn)
            }
            #expect(try EventLog.verifyWithoutKey(at: temporary.storePath, options: .testing).isIntact,
                    "the forgery is consistent in all a keyless check sees: only the associated data can refuse it")
            let reopened = try temporary.open()
            #expect(performing: { _ = try reopened.readAll(from: target, maxCount: 1) }, throws: { error in
                "\(error)".contains("does not authenticate")
            })
            let report = try reopened.verify()
            #expect(report.problems.map(\.position) == [target], "\(report.problems)")
            #expect(report.problems.first?.message.contains("does not authenticate") == true, "\(report.problems)")
        }
    }

    static func withAssociatedData<R>(_ storeID: [UInt8], _ position: UInt64, _ header: [UInt8],
                                      _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storeID.withUnsafeBytes { storeID in
            try header.withUnsafeBytes { header in
                try RecordLayout.withAdditionalData(storeID: storeID, position: position, header: header, body)
            }
        }
    }
}
