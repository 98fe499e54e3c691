import Compliance
import Foundation
import EventLog
import HexCoding
import Output
import Projections
import SessionModel

/// What `erase` did: the sessions, then the compaction.
struct ErasureRow: OutputRow {
    static let columns = ["subject_hash", "erased_sessions", "already_erased_sessions", "event_position", "erase_ms"]
        + CompactionRow.columns

    var report: ErasureReport
    var erasing: Duration
    var compaction: CompactionReport

    func write(to fields: inout Fields) {
        fields.field("subject_hash", report.subject.description)
        fields.field("erased_sessions", strings: report.erased.map(Hex.uuid))
        fields.field("already_erased_sessions", strings: report.alreadyErased.map(Hex.uuid))
        fields.field("event_position", report.eventPosition)
        fields.field("erase_ms", erasing.milliseconds)
        CompactionRow(report: compaction).write(to: &fields)
    }
}

/// What `compact` did.
struct CompactionRow: OutputRow {
    static let columns = ["bytes_before", "bytes_after", "compaction_ms", "compaction_mb_per_s"]

    var report: CompactionReport

    func write(to fields: inout Fields) {
        fields.field("bytes_before", report.bytesBefore)
        fields.field("bytes_after", report.bytesAfter)
        fields.field("compaction_ms", report.duration.milliseconds)
        let seconds = report.duration.seconds
        fields.field("compaction_mb_per_s", seconds > 0 ? Double(report.bytesBefore) / 1_000_000 / seconds : nil)
    }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
    /// Seconds, fractional.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// A session `retention apply` purges (or, with --dry-run, would).
struct PurgeRow: OutputRow {
    static let columns = ["session", "status", "ended_at", "holds"]

    var summary: SessionSummary
    var dryRun: Bool
    var partialsOnly = false
    /// The legal holds that keep the session: it is listed as held, and nothing of it goes.
    var holds: [LegalHold] = []

    func write(to fields: inout Fields) {
        fields.field("session", id: summary.session)
        let status = switch (partialsOnly, dryRun, holds.isEmpty) {
        case (_, _, false): partialsOnly ? "held (partials kept)" : "held"
        case (false, false, true): "purged"
        case (false, true, true): "would be purged"
        case (true, false, true): "partials discarded"
        case (true, true, true): "partials would be discarded"
        }
        fields.field("status", status)
        fields.field("ended_at", time: summary.endedAt)
        fields.field("holds", strings: holds.map { Hex.uuid($0.id) })
    }
}

/// The policy in force.
struct PolicyRow: OutputRow {
    static let columns = ["max_age_ms", "partials_max_age_ms"]

    var policy: RetentionPolicy?

    func write(to fields: inout Fields) {
        fields.field("max_age_ms", policy?.maxAge)
        fields.field("partials_max_age_ms", policy?.partialsMaxAge)
    }
}

/// An inclusion proof of one record against a checkpoint.
struct ProofRow: OutputRow {
    static let columns = ["session", "stream_number", "leaf_index", "tree_size", "leaf_hash", "audit_path", "root_hash",
                          "record", "nonce"]

    var proof: SessionRecordProof

    func write(to fields: inout Fields) {
        proof.writePlace(to: &fields)
        fields.field("leaf_hash", base64: proof.record.leafHash)
        fields.field("audit_path", strings: proof.path.map { Data($0).base64EncodedString() })
        fields.field("root_hash", base64: proof.checkpoint.rootHash)
        fields.field("record", base64: proof.record.record)
        fields.field("nonce", base64: proof.record.nonce)
    }
}

/// Which tlog-proof file holds which record (`prove --bundle`).
struct BundleRow: OutputRow {
    static let columns = ["session", "stream_number", "leaf_index", "tree_size", "file"]

    var proof: SessionRecordProof
    var file: String

    func write(to fields: inout Fields) {
        proof.writePlace(to: &fields)
        fields.field("file", file)
    }
}

extension SessionRecordProof {
    /// Which record of which session this proves, in which tree: the first columns of proof rows.
    func writePlace(to fields: inout Fields) {
        fields.field("session", id: session)
        fields.field("stream_number", streamNumber)
        fields.field("leaf_index", record.position)
        fields.field("tree_size", checkpoint.size)
    }
}

/// What `keys rotate` did.
struct RotationRow: OutputRow {
    static let columns = ["data_keys", "dictionaries", "view_rows"] + CompactionRow.columns

    var report: KeyRotationReport

    func write(to fields: inout Fields) {
        fields.field("data_keys", report.dataKeys)
        fields.field("dictionaries", report.dictionaries)
        fields.field("view_rows", report.viewRows)
        if let compaction = report.compaction { CompactionRow(report: compaction).write(to: &fields) }
    }
}

/// One legal hold: what it covers, why, and whether it is still in force.
struct HoldRow: OutputRow {
    static let columns = ["hold_id", "status", "subject_hash", "sessions", "reason", "placed_by", "placed_at", "review_by", "position",
                          "released_by", "released_at", "release_reason", "release_position"]

    var hold: LegalHold

    func write(to fields: inout Fields) {
        fields.field("hold_id", id: hold.id)
        fields.field("status", hold.isOpen ? "in force" : "released")
        fields.field("subject_hash", hold.subject?.description)
        fields.field("sessions", strings: hold.sessions.map(Hex.uuid))
        fields.field("reason", hold.reason)
        fields.field("placed_by", hold.placedBy)
        fields.field("placed_at", time: hold.placedAt)
        fields.field("review_by", time: hold.reviewBy)
        fields.field("position", hold.position)
        fields.field("released_by", hold.release?.actor)
        fields.field("released_at", time: hold.release?.at)
        fields.field("release_reason", hold.release?.reason)
        fields.field("release_position", hold.release?.position)
    }
}

/// One read or export of session content (`audit access`).
struct AccessRow: OutputRow {
    static let columns = ["position", "at", "actor", "purpose", "command", "sessions", "subject_hash"]

    var entry: AccessEntry

    func write(to fields: inout Fields) {
        fields.field("position", entry.position)
        fields.field("at", time: entry.at)
        fields.field("actor", entry.actor)
        fields.field("purpose", entry.purpose)
        fields.field("command", entry.command)
        fields.field("sessions", strings: entry.sessions.map(Hex.uuid))
        fields.field("subject_hash", entry.subject?.description)
    }
}

/// The store's access policy.
struct AccessPolicyRow: OutputRow {
    static let columns = ["purpose_required"]

    var policy: AccessPolicy

    func write(to fields: inout Fields) {
        fields.field("purpose_required", policy.purposeRequired)
    }
}

/// An access token (`tokens create|list|revoke`): never its secret, except once, when it is made.
struct TokenRow: OutputRow {
    static let columns = ["token_id", "status", "scope", "name", "subject_hashes", "expires_at", "created_by", "created_at", "position",
                          "revoked_by", "revoked_at", "token"]

    var token: AccessToken
    var status: String
    /// The token itself, only when it was just made.
    var secret: String?

    init(token: AccessToken, now: Int64) {
        self.token = token
        status = token.revokedAt != nil ? "revoked" : token.isValid(at: now) ? "valid" : "expired"
    }

    init(token: AccessToken, secret: String) {
        self.token = token
        status = "valid"
        self.secret = secret
    }

    func write(to fields: inout Fields) {
        fields.field("token_id", id: token.id)
        fields.field("status", status)
        fields.field("scope", token.scope.rawValue)
        fields.field("name", token.name)
        fields.field("subject_hashes", strings: token.subjects.map(\.description))
        fields.field("expires_at", time: token.expiresAt)
        fields.field("created_by", token.createdBy)
        fields.field("created_at", time: token.createdAt)
        fields.field("position", token.position)
        fields.field("revoked_by", token.revokedBy)
        fields.field("revoked_at", time: token.revokedAt)
        fields.field("token", secret)
    }
}
