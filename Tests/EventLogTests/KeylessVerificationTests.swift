@testable import EventLog
import Foundation
import Testing
import TestSupport

/// `verifyWithoutKey`: what an auditor holding no key can check, and what only the key can.
@Suite struct KeylessVerificationTests {
    static func record(_ position: UInt64, in txn: StoreTransaction) throws -> [UInt8] {
        Array(try txn.get(StoreLayout.events, StoreLayout.positionKey(position))!)
    }

    @Test(arguments: ["ciphertext", "header", "moved", "removed", "node"], [0, 8192])
    func everyTamperingThatNeedsNoKeyToSeeIsFoundWithoutTheKey(_ tampering: String, blockBodyBytes: Int) async throws {
        try await withTemporaryStore { temporary in
            _ = try await MerkleTreeTests.store(temporary, count: 600, blockBodyBytes: blockBodyBytes)
            #expect(try EventLog.verifyWithoutKey(at: temporary.storePath, options: .testing).isIntact)
            try MerkleTreeTests.tamper(temporary) { txn in
                switch tampering {
                case "ciphertext":
                    var bytes = try Self.record(42, in: txn)
                    bytes[bytes.count - 1] ^= 1
                    try txn.put(StoreLayout.events, StoreLayout.positionKey(42), bytes)
                case "header":  // another stream number in the clear header
                    var bytes = try Self.record(42, in: txn)
                    bytes[31] ^= 1
                    try txn.put(StoreLayout.events, StoreLayout.positionKey(42), bytes)
                case "moved":
                    let (a, b) = (try Self.record(7, in: txn), try Self.record(8, in: txn))
                    try txn.put(StoreLayout.events, StoreLayout.positionKey(7), b)
                    try txn.put(StoreLayout.events, StoreLayout.positionKey(8), a)
                case "removed":
                    try txn.delete(StoreLayout.events, StoreLayout.positionKey(300))
                default:
                    try txn.put(StoreLayout.merkle, MerkleNodes.key(level: 9, index: 0), SHA256.hash([7]))
                }
            }
            let report = try EventLog.verifyWithoutKey(at: temporary.storePath, options: .testing)
            #expect(!report.isIntact, "\(tampering) was not found without the key")
            #expect(!report.contentAuthenticated)
        }
    }

    @Test func aRecordResealedWithAMatchingLeafIsFoundOnlyWithTheKeyOrAgainstACheckpoint() async throws {
        try await withTemporaryStore { temporary in
            let (log, _) = try await MerkleTreeTests.store(temporary, count: 300, blockBodyBytes: 0)
            let checkpoint = try log.signedCheckpoint()
            let verifierKey = log.checkpointVerifierKey
            try log.close()
            // The ciphertext changed, its leaf hash and the stored tree nodes recomputed to match it: all a
            // rewriter of the files can do, keys or not.
            try MerkleTreeTests.tamper(temporary) { txn in
                var provable = ProvableRecord(position: 100, record: try Self.record(100, in: txn), nonce: [])
                var cursor = NonceBaseCursor()
                provable.nonce = try cursor.base(for: 100, in: txn)!.withNonce(for: 100) { Array($0) }
                provable.record[100] ^= 1
                provable.record.replaceSubrange(60..<92, with: provable.leafHash)
                try txn.put(StoreLayout.events, StoreLayout.positionKey(100), provable.record)
                try MerkleNodes.extend(from: 0, to: 300, in: txn)
            }
            #expect(try EventLog.verifyWithoutKey(at: temporary.storePath,
                options: .testing).isIntact, "without the key, a consistent leaf is all there is to see")
            let anchored = try EventLog.verifyWithoutKey(at: temporary.storePath,
                                                         anchor: try Checkpoint.verified(checkpoint.text, verifierKey: verifierKey),
                                                             options: .testing)
            #expect(anchored.anchorConsistent == false, "an auditor's checkpoint catches it without the key")
            let keyed = try temporary.open().verify()
            #expect(keyed.problems.contains { $0.position == 100 }, "the key catches it: the record does not authenticate")
        }
    }

    @Test func keylessVerificationPassesAfterAnErasure() async throws {
        try await withTemporaryStore { temporary in
            let stream = StreamID()
            do {
                let log = try temporary.create()
                try await log.append([event("erase me"), event("and me")], to: stream)
                try await log.append([event("keep me")], to: StreamID())
                try log.destroyKeys(of: [stream])
            }
            let report = try EventLog.verifyWithoutKey(at: temporary.storePath, options: .testing)
            #expect(report.isIntact && report.checkedRecords == 3)
        }
    }
}
