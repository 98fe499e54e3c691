import Foundation

/// A session's data was purged because its retention period ended.
public struct RetentionPurged: Hashable, Sendable {
    /// The retention policy's name, as configured.
    public var policy: String = ""
    /// Sessions that ended before this time (ms since 1970) were purged.
    public var cutoff: Int64 = 0
    /// The sessions whose data keys were destroyed.
    public var sessions: [UUID] = []
    /// Whether only the sessions' discardable keys (their transcript partials) were destroyed.
    public var partialsOnly = false

    init() {}

    /// A purge under `policy` of `sessions`, which ended before `cutoff` (milliseconds since 1970):
    /// of their transcript partials alone when `partialsOnly`.
    public init(policy: String, cutoff: Int64, sessions: [UUID] = [], partialsOnly: Bool = false) {
        self.policy = policy
        self.cutoff = cutoff
        self.sessions = sessions
        self.partialsOnly = partialsOnly
    }
}

/// A subject's data was erased by destroying the keys of their sessions.
public struct SubjectErased: Hashable, Sendable {
    /// The person whose data was erased.
    public var subject: SubjectHash?
    /// The sessions whose data keys were destroyed.
    public var sessions: [UUID] = []
    /// The erasure request's reference (a ticket number), when given.
    public var requestReference: String?

    init() {}

    /// An erasure of `subject`'s `sessions`.
    public init(subject: SubjectHash, sessions: [UUID], requestReference: String? = nil) {
        self.subject = subject
        self.sessions = sessions
        self.requestReference = requestReference
    }
}

/// How long the store keeps sessions: stored as a `retention.policy_set` event, the latest one applies.
public struct RetentionPolicy: Hashable, Sendable {
    /// Sessions that ended longer ago than this (milliseconds) are purged.
    public var maxAge: Int64
    /// Superseded transcript partials of sessions that ended longer ago than this are dropped, when set.
    public var partialsMaxAge: Int64?

    /// A policy keeping sessions `maxAge` milliseconds after they end.
    public init(maxAge: Int64, partialsMaxAge: Int64? = nil) {
        self.maxAge = maxAge
        self.partialsMaxAge = partialsMaxAge
    }
}

/// Someone exported data: who, what and in which format.
public struct ExportPerformed: Hashable, Sendable {
    /// Who exported (a user or service name).
    public var actor: String = ""
    /// The export format (`json`, `csv`, `vtt`, `srt`).
    public var format: String = ""
    /// The sessions exported.
    public var sessions: [UUID] = []
    /// The person whose data was exported, for a subject export.
    public var subject: SubjectHash?
    /// Why, when the exporter said.
    public var purpose: String?

    init() {}

    /// An export by `actor` of `sessions` as `format`.
    public init(actor: String, format: String, sessions: [UUID], subject: SubjectHash? = nil, purpose: String? = nil) {
        self.actor = actor
        self.format = format
        self.sessions = sessions
        self.subject = subject
        self.purpose = purpose
    }
}

/// Someone read session content (`access.read`, in the audit stream): who, why, which command, which
/// sessions. Exports are recorded as ``ExportPerformed`` instead.
public struct AccessRead: Hashable, Sendable {
    /// Who read (a user or service name).
    public var actor: String
    /// Why, when the reader said.
    public var purpose: String?
    /// The command (or library operation) that read: `transcript`, `events`, `audio`, `report`, `replay`, `compare`.
    public var command: String
    /// The sessions read.
    public var sessions: [UUID]

    /// A read by `actor` of `sessions` through `command`.
    public init(actor: String, purpose: String? = nil, command: String, sessions: [UUID]) {
        self.actor = actor
        self.purpose = purpose
        self.command = command
        self.sessions = sessions
    }
}

/// The store's access policy (`access.policy_set`, in the audit stream; the latest one applies).
public struct AccessPolicy: Hashable, Sendable {
    /// Every read and export must say why (`--purpose`).
    public var purposeRequired: Bool

    /// A policy requiring a purpose, or not.
    public init(purposeRequired: Bool) {
        self.purposeRequired = purposeRequired
    }
}

extension UUID {
    /// The 16 bytes in RFC 9562 order.
    public var wireBytes: [UInt8] { withUnsafeBytes(of: uuid) { Array($0) } }

    /// A version 8 (custom) UUID from the first 16 bytes of a digest: stable ids derived from content.
    public init(version8From digest: [UInt8]) {
        precondition(digest.count >= 16, "a digest of at least 16 bytes")
        var bytes = Array(digest.prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes) }
        self.init(uuid: value)
    }

    package init(wire bytes: [UInt8], field: Int) throws {
        guard bytes.count == 16 else { throw WireReader.Malformed(reason: "field \(field) is not a 16-byte UUID") }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes) }
        self.init(uuid: value)
    }
}

/// A legal hold placed (`hold.placed`, in the audit stream): until it is released, retention and erasure
/// leave the sessions it covers alone. It covers a person (every session of theirs, now and later) or
/// named sessions.
public struct HoldPlaced: Hashable, Sendable {
    /// The hold's id, which `hold release` names.
    public var hold: UUID
    /// The person held; nil when the hold names sessions.
    public var subject: SubjectHash?
    /// The sessions held; empty when the hold covers a person.
    public var sessions: [UUID]
    /// Why: a matter or case reference (never personal data).
    public var reason: String
    /// Who placed it.
    public var actor: String
    /// When the hold should be reviewed (ms since 1970): `audit check` reports it still open after this.
    public var reviewBy: Int64?

    /// A hold `hold` on `subject` or on `sessions`.
    public init(hold: UUID, subject: SubjectHash? = nil, sessions: [UUID] = [], reason: String, actor: String, reviewBy: Int64? = nil) {
        self.hold = hold
        self.subject = subject
        self.sessions = sessions
        self.reason = reason
        self.actor = actor
        self.reviewBy = reviewBy
    }
}

/// An access token made for `sessionstore serve` (`token.created`, in the tokens stream).
public struct TokenCreated: Hashable, Sendable {
    /// The token's public part: `tokens revoke` names it, and the access log records it.
    public var token: UUID
    /// The keyed hash of the token's secret (32 bytes); the secret itself is never stored.
    public var secretHash: [UInt8]
    /// What the token may do: "ingest", "read", "audit" or "admin".
    public var scope: String
    /// A read token limited to these people; empty: every subject.
    public var subjects: [SubjectHash]
    /// When it stops being accepted (ms since 1970); nil: until revoked.
    public var expiresAt: Int64?
    /// Who created it.
    public var actor: String
    /// What it is for, shown by `tokens list`.
    public var name: String

    /// A token `token` with the keyed hash `secretHash` of its secret.
    public init(token: UUID, secretHash: [UInt8], scope: String, subjects: [SubjectHash] = [], expiresAt: Int64? = nil,
                actor: String, name: String) {
        self.token = token
        self.secretHash = secretHash
        self.scope = scope
        self.subjects = subjects
        self.expiresAt = expiresAt
        self.actor = actor
        self.name = name
    }
}

/// An access token refused from now on (`token.revoked`, in the tokens stream).
public struct TokenRevoked: Hashable, Sendable {
    /// The id of the token revoked.
    public var token: UUID
    /// Who revoked it.
    public var actor: String

    /// The revocation of `token`.
    public init(token: UUID, actor: String) {
        self.token = token
        self.actor = actor
    }
}

/// A verification of the whole store (`integrity.verified`, in the integrity stream): what `verify`
/// found, recorded by the server when someone asks it to verify.
public struct IntegrityVerified: Hashable, Sendable {
    /// Who asked.
    public var actor: String
    /// Whether every record and the tree checked out.
    public var passed: Bool
    /// Records read and checked, and of them those whose keys were destroyed (checked by leaf hash).
    public var recordsChecked: UInt64
    public var erasedRecords: UInt64
    /// The tree rebuilt from the records' leaf hashes.
    public var treeSize: UInt64
    public var rootHash: [UInt8]
    /// Problems found, and the first of them in words.
    public var problemCount: UInt32
    public var firstProblem: String?
    /// How long the verification took, in milliseconds.
    public var tookMilliseconds: UInt64

    public init(actor: String, passed: Bool, recordsChecked: UInt64, erasedRecords: UInt64, treeSize: UInt64, rootHash: [UInt8],
                problemCount: UInt32, firstProblem: String?, tookMilliseconds: UInt64) {
        self.actor = actor
        self.passed = passed
        self.recordsChecked = recordsChecked
        self.erasedRecords = erasedRecords
        self.treeSize = treeSize
        self.rootHash = rootHash
        self.problemCount = problemCount
        self.firstProblem = firstProblem
        self.tookMilliseconds = tookMilliseconds
    }
}

/// A signed checkpoint given out (`checkpoint.issued`, in the integrity stream): by `anchor`, with the
/// witnesses that cosigned it, or by the server to an auditor.
public struct CheckpointIssued: Hashable, Sendable {
    /// Who it was given to (the server's token) or who made it (`anchor`).
    public var actor: String
    /// The tree it commits to.
    public var treeSize: UInt64
    public var rootHash: [UInt8]
    /// The names of the witnesses whose cosignatures it carries.
    public var witnesses: [String]

    public init(actor: String, treeSize: UInt64, rootHash: [UInt8], witnesses: [String] = []) {
        self.actor = actor
        self.treeSize = treeSize
        self.rootHash = rootHash
        self.witnesses = witnesses
    }
}

/// A legal hold released (`hold.released`, in the audit stream).
public struct HoldReleased: Hashable, Sendable {
    /// The id of the hold released.
    public var hold: UUID
    /// Why it was released.
    public var reason: String
    /// Who released it.
    public var actor: String

    /// The release of `hold`.
    public init(hold: UUID, reason: String, actor: String) {
        self.hold = hold
        self.reason = reason
        self.actor = actor
    }
}
