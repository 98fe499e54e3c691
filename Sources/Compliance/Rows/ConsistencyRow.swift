import Foundation
import Output

/// The consistency proof between two checkpoints (`prove --from`).
public struct ConsistencyRow: OutputRow {
    public static let columns = ["origin", "old_size", "old_root_hash", "new_size", "new_root_hash", "consistency_path"]

    public var proof: CheckpointConsistency

    public init(proof: CheckpointConsistency) {
        self.proof = proof
    }

    public func write(to fields: inout Fields) {
        fields.field("origin", proof.old.origin)
        fields.field("old_size", proof.old.size)
        fields.field("old_root_hash", base64: proof.old.rootHash)
        fields.field("new_size", proof.new.size)
        fields.field("new_root_hash", base64: proof.new.rootHash)
        fields.field("consistency_path", strings: proof.path.map { Data($0).base64EncodedString() })
    }
}
