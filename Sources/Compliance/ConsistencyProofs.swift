import EventLog
import Foundation

/// An RFC 9162 consistency proof between two checkpoints of one store: with both checkpoints and this,
/// an auditor knows the later tree extends the earlier one (nothing the first covered was changed,
/// removed, reordered or truncated) without the store (docs/COMPLIANCE.md).
public struct CheckpointConsistency: Hashable, Sendable {
    /// The earlier checkpoint.
    public var old: Checkpoint
    /// The later checkpoint.
    public var new: Checkpoint
    /// The proof's node hashes, as RFC 9162 §2.1.4.1 orders them.
    public var path: [[UInt8]]
}

/// Consistency proofs between checkpoints an auditor kept.
public enum ConsistencyProofs {
    /// The proof that `new` extends `old`, both checkpoints of `log`'s store whose signatures the caller
    /// has verified (``Checkpoint/verified(_:verifierKey:)``). The proof is checked against both roots
    /// before it is returned.
    /// - Throws: ``ComplianceError/Code/invalidRequest`` when the checkpoints are of different logs or
    ///   `old` covers more records than `new`; ``ComplianceError/Code/outOfRange`` when `new` covers more
    ///   records than the log holds; ``ComplianceError/Code/inconsistent`` when the log's tree does not
    ///   lead to both roots: the log was rewritten since one of them was made, or one is another store's.
    public static func between(_ old: Checkpoint, _ new: Checkpoint, in log: EventLog) throws -> CheckpointConsistency {
        guard old.origin == new.origin else {
            throw ComplianceError(.invalidRequest, "the checkpoints are of different logs (\(old.origin) and \(new.origin))")
        }
        guard old.size <= new.size else {
            throw ComplianceError(.invalidRequest, "the earlier checkpoint covers \(old.size) records and the later one \(new.size): "
                                  + "the older checkpoint comes first")
        }
        let count = try log.eventCount()
        guard new.size <= count else {
            throw ComplianceError(.outOfRange, "the later checkpoint covers \(new.size) records and the log holds \(count): "
                                  + "it is not of this store, or the log was truncated")
        }
        let path = try log.consistencyProof(from: old.size, to: new.size)
        guard MerkleProof.verifyConsistency(path, oldSize: old.size, oldRoot: old.rootHash, newSize: new.size, newRoot: new.rootHash) else {
            throw ComplianceError(.inconsistent, "the log's tree does not lead from the checkpoint of \(old.size) records to the one of "
                                  + "\(new.size): the log was rewritten since one of them was made, or one is another store's")
        }
        return CheckpointConsistency(old: old, new: new, path: path)
    }
}
