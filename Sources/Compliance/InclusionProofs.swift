import EventLog
import Foundation
import SessionLog

/// An RFC 9162 inclusion proof of one record of a session against a checkpoint: with the record's clear
/// bytes and the checkpoint, a verifier needs nothing else (docs/COMPLIANCE.md).
public struct SessionRecordProof: Hashable, Sendable {
    /// The session.
    public var session: UUID
    /// The event's number in the session's stream, from 0.
    public var streamNumber: UInt64
    /// The record as stored, with its global position (the leaf index).
    public var record: ProvableRecord
    /// The checkpoint proved against.
    public var checkpoint: Checkpoint
    /// The audit path, from the leaf up.
    public var path: [[UInt8]]
}

/// Inclusion proofs of a session's records. Erased sessions are proved too: no key is needed.
public enum InclusionProofs {
    /// Proofs of every record of `session`, or of the one with stream number `event`, against
    /// `checkpoint` (verify a checkpoint an auditor kept before passing it; `log.signedCheckpoint()`
    /// is the tree as it is now).
    /// - Throws: ``ComplianceError/Code/outOfRange`` for an event the session does not have, or one
    ///   newer than the checkpoint.
    public static func of(_ session: UUID, event: UInt64? = nil, against checkpoint: Checkpoint, in log: EventLog) throws -> [SessionRecordProof] {
        var positions = try log.positions(of: SessionStreams.session(session))
        var numbers = Array(0..<UInt64(positions.count))
        if let event {
            guard event < positions.count else {
                throw ComplianceError(.outOfRange, "session \(session.uuidString.lowercased()) has \(positions.count) events; there is no event \(event)")
            }
            positions = [positions[Int(event)]]
            numbers = [event]
        }
        return try zip(numbers, positions).map { number, position in
            guard position < checkpoint.size else {
                throw ComplianceError(.outOfRange, "event \(number) of the session (position \(position)) is newer than the checkpoint's "
                                      + "\(checkpoint.size) records; anchor again")
            }
            return SessionRecordProof(session: session, streamNumber: number, record: try log.provableRecord(at: position),
                                      checkpoint: checkpoint, path: try log.inclusionProof(position: position, treeSize: checkpoint.size))
        }
    }
}

extension InclusionProofs {
    /// The C2SP tlog-proof of the record at log `position`, whatever its stream (a consent event's
    /// copy in its subject's trail, an audit event), against `checkpoint`.
    /// - Throws: ``ComplianceError/Code/outOfRange`` for a position the checkpoint does not cover.
    public static func tlogProof(ofRecordAt position: UInt64, against checkpoint: Checkpoint, in log: EventLog) throws -> String {
        guard position < checkpoint.size else {
            throw ComplianceError(.outOfRange, "the checkpoint covers \(checkpoint.size) records; there is no record at position \(position) in it")
        }
        return tlogProof(of: try log.provableRecord(at: position), path: try log.inclusionProof(position: position, treeSize: checkpoint.size),
                         checkpoint: checkpoint)
    }

    /// A C2SP `tlog-proof@v1` file, verifiable offline with nothing but the store's verifier key
    /// (docs/COMPLIANCE.md): the `extra` line holds the record's leaf data (``ProvableRecord/leafData``,
    /// whose RFC 6962 record hash is the leaf), then the index, the audit path from the leaf's sibling
    /// up, a blank line and the checkpoint verbatim.
    static func tlogProof(of record: ProvableRecord, path: [[UInt8]], checkpoint: Checkpoint) -> String {
        var text = "c2sp.org/tlog-proof@v1\nextra \(Data(record.leafData).base64EncodedString())\nindex \(record.position)\n"
        for hash in path { text += Data(hash).base64EncodedString() + "\n" }
        return text + "\n" + checkpoint.text
    }
}

extension SessionRecordProof {
    /// The proof as a C2SP `tlog-proof@v1` file (``InclusionProofs/tlogProof(ofRecordAt:against:in:)``).
    public var tlogProof: String {
        InclusionProofs.tlogProof(of: record, path: path, checkpoint: checkpoint)
    }
}
