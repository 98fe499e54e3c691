import Foundation
import HexCoding
import Output
import SessionModel

/// One record of the store's integrity evidence (`audit integrity`, `GET /v1/integrity`): a verification
/// (`kind` verification) or a signed checkpoint given out (`kind` checkpoint); the fields of the other
/// kind are null.
public struct IntegrityRow: OutputRow {
    public static let columns = ["kind", "position", "at", "actor", "tree_size", "root_hash", "passed", "records_checked",
                                 "erased_records", "problem_count", "first_problem", "took_ms", "witnesses"]

    public enum Record: Sendable {
        case verification(IntegrityEvidence.Entry<IntegrityVerified>)
        case checkpoint(IntegrityEvidence.Entry<CheckpointIssued>)
    }

    public var record: Record

    public init(_ record: Record) {
        self.record = record
    }

    /// The log position of the record.
    public var position: UInt64 {
        switch record {
        case .verification(let entry): entry.position
        case .checkpoint(let entry): entry.position
        }
    }

    public func write(to fields: inout Fields) {
        switch record {
        case .verification(let entry):
            let verified = entry.payload
            common(&fields, kind: "verification", position: entry.position, at: entry.occurredAt, actor: verified.actor,
                   treeSize: verified.treeSize, rootHash: verified.rootHash)
            fields.field("passed", verified.passed)
            fields.field("records_checked", verified.recordsChecked)
            fields.field("erased_records", verified.erasedRecords)
            fields.field("problem_count", verified.problemCount)
            fields.field("first_problem", verified.firstProblem)
            fields.field("took_ms", verified.tookMilliseconds)
            fields.field("witnesses", strings: nil)
        case .checkpoint(let entry):
            let issued = entry.payload
            common(&fields, kind: "checkpoint", position: entry.position, at: entry.occurredAt, actor: issued.actor,
                   treeSize: issued.treeSize, rootHash: issued.rootHash)
            fields.field("passed", nil as Bool?)
            fields.field("records_checked", nil as UInt64?)
            fields.field("erased_records", nil as UInt64?)
            fields.field("problem_count", nil as UInt32?)
            fields.field("first_problem", nil as String?)
            fields.field("took_ms", nil as UInt64?)
            fields.field("witnesses", strings: issued.witnesses)
        }
    }

    private func common(_ fields: inout Fields, kind: String, position: UInt64, at: Int64, actor: String, treeSize: UInt64, rootHash: [UInt8]) {
        fields.field("kind", kind)
        fields.field("position", position)
        fields.field("at", time: at)
        fields.field("actor", actor)
        fields.field("tree_size", treeSize)
        fields.field("root_hash", Hex.string(rootHash))
    }
}
