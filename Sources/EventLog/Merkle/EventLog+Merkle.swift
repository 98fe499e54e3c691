import Foundation

/// A tree size and its RFC 9162 root hash.
public struct TreeHead: Hashable, Sendable {
    /// The number of leaves (records) covered.
    public var size: UInt64
    /// The root hash of the first `size` leaves.
    public var rootHash: [UInt8]
}

/// What an independent verifier needs to recompute a record's leaf hash: its header, leaf hash and the ciphertext its leaf
/// hash covers, and the nonce that ciphertext was sealed with (FORMAT.md §5.3–5.4, §5.8). Nothing in it needs a key, and
/// it stays after erasure.
public struct ProvableRecord: Hashable, Sendable {
    /// The record's global position: its leaf index.
    public var position: UInt64
    /// Clear header, leaf hash, ciphertext and tag: the record as stored when it was sealed on its own; for a record
    /// of a block, its header and leaf hash followed by the block's ciphertext and tag (stored in the block's first record).
    public var record: [UInt8]
    /// The nonce the ciphertext was sealed with: the record's own, or its block's (that of the block's first position).
    public var nonce: [UInt8]

    /// The leaf's data in RFC 6962's sense (the entry its leaf hash is `SHA-256(0x00 ‖ data)` of):
    /// `position u64 ‖ header ‖ SHA-256(nonce ‖ ciphertext ‖ tag)`, 100 bytes, computed here.
    public var leafData: [UInt8] {
        var digest = SHA256()
        digest.update(nonce)
        digest.update(Array(record[RecordLayout.ciphertextOffset...]))
        return [UInt8](bigEndian: position) + Array(record[..<RecordHeader.byteCount]) + digest.digest()
    }

    /// `SHA-256(0x00 ‖ leafData)`, computed here.
    public var leafHash: [UInt8] {
        var leaf = SHA256()
        leaf.update(byte: 0)
        leaf.update(leafData)
        return leaf.digest()
    }
}

extension EventLog {
    /// The tree head of the first `size` records (default: the whole log).
    public func treeHead(size: UInt64? = nil) throws -> TreeHead {
        try reading { txn in
            let count = try count(in: txn)
            let size = size ?? count
            guard size <= count else {
                throw EventLogError(.invalidArgument, "the log holds \(count) records; there is no tree of \(size)")
            }
            return TreeHead(size: size, rootHash: try MerkleNodes.node(0, size, in: txn))
        }
    }

    /// The audit path of the record at `position` in the tree of the first `treeSize` records.
    public func inclusionProof(position: UInt64, treeSize: UInt64) throws -> [[UInt8]] {
        try reading { txn in
            let count = try count(in: txn)
            guard position < treeSize, treeSize <= count else {
                throw EventLogError(.invalidArgument, "position \(position) is not in a tree of \(treeSize) of the log's \(count) records")
            }
            return try MerkleProof.inclusion(of: position, size: treeSize) { try MerkleNodes.node($0, $1, in: txn) }
        }
    }

    /// The proof that the tree of the first `newSize` records extends the tree of the first `oldSize`.
    public func consistencyProof(from oldSize: UInt64, to newSize: UInt64) throws -> [[UInt8]] {
        try reading { txn in
            let count = try count(in: txn)
            guard oldSize <= newSize, newSize <= count else {
                throw EventLogError(.invalidArgument, "no consistency proof from \(oldSize) to \(newSize) records in a log of \(count)")
            }
            return try MerkleProof.consistency(from: oldSize, to: newSize) { try MerkleNodes.node($0, $1, in: txn) }
        }
    }

    /// The record at `position` with the ciphertext its leaf hash covers and that ciphertext's nonce: enough to recompute
    /// its leaf hash.
    public func provableRecord(at position: UInt64) throws -> ProvableRecord {
        try reading { txn in
            guard let record = try txn.get(StoreLayout.events, StoreLayout.positionKey(position)),
                  record.count >= RecordLayout.leafEnd else {
                throw EventLogError(.invalidArgument, "the log has no record at position \(position)")
            }
            let unit = try SealedUnit.group([(position, record)], in: txn)[0].unit
            if let problem = unit.problem { throw EventLogError.integrity(position, problem) }
            let first = unit.first
            guard let kind = first.first.flatMap(RecordHeader.Kind.init(rawValue:)),
                  let sealed = RecordLayout.sealedRange(of: first, kind: kind) else {
                throw EventLogError.integrity(unit.position, "is malformed (\(first.count) bytes, no ciphertext)")
            }
            var cursor = NonceBaseCursor()
            guard let base = try cursor.base(for: unit.position, in: txn) else {
                throw EventLogError.integrity(unit.position, "has no nonce base in nonce-bases")
            }
            return ProvableRecord(position: position, record: Array(record[..<RecordLayout.leafEnd]) + Array(first[sealed]),
                                  nonce: base.withNonce(for: unit.position) { Array($0) })
        }
    }

    /// The checkpoint signer's name: `sessionstore/` and the store id.
    var checkpointOrigin: String { "sessionstore/\(storeID.uuidString.lowercased())" }

    private var checkpointSigner: CheckpointSigner {
        CheckpointSigner(seed: keyHierarchy.checkpointSigning, name: checkpointOrigin)
    }

    /// The key that verifies this store's checkpoints, in the signed-note form
    /// `NAME+KEYHASH+BASE64(0x01 ‖ Ed25519 public key)`. Give it to auditors: it cannot sign.
    public var checkpointVerifierKey: String { checkpointSigner.verifierKey }

    /// A signed checkpoint of the tree of the first `size` records (default: the whole log).
    public func signedCheckpoint(size: UInt64? = nil) throws -> Checkpoint {
        let head = try treeHead(size: size)
        return checkpointSigner.sign(size: head.size, rootHash: head.rootHash)
    }

    private func count(in txn: StoreTransaction) throws -> UInt64 {
        try StoreLayout.eventCount(in: txn)
    }
}
