import Foundation
import HexCoding

// The events the store writes itself: ingest refuses them, so they have no JSON reader, only the fields
// `events` prints.

extension RetentionPurged {
    init(_ m: Sessionstore_V1_RetentionPurged) throws {
        self.init(policy: m.policy, cutoff: m.cutoffMs, sessions: try m.sessions.map { try UUID(wire: Array($0), field: 10) },
                  partialsOnly: m.partialsOnly)
    }

    var message: Sessionstore_V1_RetentionPurged {
        var m = Sessionstore_V1_RetentionPurged()
        m.policy = policy
        m.cutoffMs = cutoff
        m.sessions = sessions.map { Data($0.wireBytes) }
        m.partialsOnly = partialsOnly
        return m
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("policy", policy)
        fields.field("cutoff_at", time: cutoff)
        fields.field("partials_only", partialsOnly)
    }
}

extension SubjectErased {
    init(_ m: Sessionstore_V1_SubjectErased) throws {
        self.init()
        subject = try SessionPayload.subject(m.subjectHash, field: 8)
        sessions = try m.sessions.map { try UUID(wire: Array($0), field: 9) }
        requestReference = m.hasRequestReference ? m.requestReference : nil
    }

    var message: Sessionstore_V1_SubjectErased {
        var m = Sessionstore_V1_SubjectErased()
        m.subjectHash = Data(subject?.bytes ?? [])
        m.sessions = sessions.map { Data($0.wireBytes) }
        if let requestReference { m.requestReference = requestReference }
        return m
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("subject_hash", subject?.description)
        fields.field("sessions", strings: sessions.map(Hex.uuid))
        fields.field("request_reference", requestReference)
    }
}

extension RetentionPolicy {
    init(_ m: Sessionstore_V1_RetentionPolicySet) {
        self.init(maxAge: Int64(clamping: m.maxAgeMs), partialsMaxAge: m.hasPartialsMaxAgeMs ? Int64(clamping: m.partialsMaxAgeMs) : nil)
    }

    var message: Sessionstore_V1_RetentionPolicySet {
        var m = Sessionstore_V1_RetentionPolicySet()
        m.maxAgeMs = UInt64(max(0, maxAge))
        if let partialsMaxAge { m.partialsMaxAgeMs = UInt64(max(0, partialsMaxAge)) }
        return m
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("max_age_ms", maxAge)
        fields.field("partials_max_age_ms", partialsMaxAge)
    }
}

extension ExportPerformed {
    init(_ m: Sessionstore_V1_ExportPerformed) throws {
        self.init()
        actor = m.actor
        format = m.format
        sessions = try m.sessions.map { try UUID(wire: Array($0), field: 10) }
        subject = try SessionPayload.subject(m.subjectHash, field: 11)
        purpose = m.hasPurpose ? m.purpose : nil
    }

    var message: Sessionstore_V1_ExportPerformed {
        var m = Sessionstore_V1_ExportPerformed()
        m.actor = actor
        m.format = format
        m.sessions = sessions.map { Data($0.wireBytes) }
        m.subjectHash = Data(subject?.bytes ?? [])
        if let purpose { m.purpose = purpose }
        return m
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("actor", actor)
        fields.field("format", format)
        fields.field("sessions", strings: sessions.map(Hex.uuid))
        fields.field("subject_hash", subject?.description)
        fields.field("purpose", purpose)
    }
}

extension HoldPlaced {
    init(_ m: Sessionstore_V1_HoldPlaced) throws {
        let subject = try SessionPayload.subject(m.subjectHash, field: 9)
        let sessions = try m.sessions.map { try UUID(wire: Array($0), field: 10) }
        guard (subject == nil) != sessions.isEmpty else {
            throw WireReader.Malformed(reason: "a hold names either a subject (field 9) or sessions (field 10), exactly one of them")
        }
        self.init(hold: try UUID(wire: Array(m.holdID), field: 8), subject: subject, sessions: sessions, reason: m.reason,
                  actor: m.actor, reviewBy: m.hasReviewByMs ? m.reviewByMs : nil)
    }

    var message: Sessionstore_V1_HoldPlaced {
        var m = Sessionstore_V1_HoldPlaced()
        m.holdID = Data(hold.wireBytes)
        m.subjectHash = Data(subject?.bytes ?? [])
        m.sessions = sessions.map { Data($0.wireBytes) }
        m.reason = reason
        m.actor = actor
        if let reviewBy { m.reviewByMs = reviewBy }
        return m
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("hold_id", id: hold)
        fields.field("subject_hash", subject?.description)
        fields.field("sessions", strings: sessions.map(Hex.uuid))
        fields.field("reason", reason)
        fields.field("actor", actor)
        fields.field("review_by", time: reviewBy)
    }
}

extension HoldReleased {
    init(_ m: Sessionstore_V1_HoldReleased) throws {
        self.init(hold: try UUID(wire: Array(m.holdID), field: 8), reason: m.reason, actor: m.actor)
    }

    var message: Sessionstore_V1_HoldReleased {
        var m = Sessionstore_V1_HoldReleased()
        m.holdID = Data(hold.wireBytes)
        m.reason = reason
        m.actor = actor
        return m
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("hold_id", id: hold)
        fields.field("reason", reason)
        fields.field("actor", actor)
    }
}

extension AccessRead {
    init(_ m: Sessionstore_V1_AccessRead) throws {
        self.init(actor: m.actor, purpose: m.hasPurpose ? m.purpose : nil, command: m.command,
                  sessions: try m.sessions.map { try UUID(wire: Array($0), field: 11) })
    }

    var message: Sessionstore_V1_AccessRead {
        var m = Sessionstore_V1_AccessRead()
        m.actor = actor
        if let purpose { m.purpose = purpose }
        m.command = command
        m.sessions = sessions.map { Data($0.wireBytes) }
        return m
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("actor", actor)
        fields.field("purpose", purpose)
        fields.field("command", command)
        fields.field("sessions", strings: sessions.map(Hex.uuid))
    }
}

extension AccessPolicy {
    init(_ m: Sessionstore_V1_AccessPolicySet) { self.init(purposeRequired: m.purposeRequired) }

    var message: Sessionstore_V1_AccessPolicySet {
        var m = Sessionstore_V1_AccessPolicySet()
        m.purposeRequired = purposeRequired
        return m
    }

    func write(to fields: inout some PayloadFieldWriter) { fields.field("purpose_required", purposeRequired) }
}

extension TokenCreated {
    init(_ m: Sessionstore_V1_TokenCreated) throws {
        guard m.secretHash.count == 32 else { throw WireReader.Malformed(reason: "field 9 is not a 32-byte keyed hash") }
        let subjects = try m.subjects.map { bytes in
            guard let hash = try SessionPayload.subject(bytes, field: 11) else {
                throw WireReader.Malformed(reason: "field 11 holds an empty subject hash")
            }
            return hash
        }
        self.init(token: try UUID(wire: Array(m.tokenID), field: 8), secretHash: Array(m.secretHash), scope: m.scope,
                  subjects: subjects, expiresAt: m.hasExpiresAtMs ? m.expiresAtMs : nil, actor: m.actor, name: m.name)
    }

    var message: Sessionstore_V1_TokenCreated {
        var m = Sessionstore_V1_TokenCreated()
        m.tokenID = Data(token.wireBytes)
        m.secretHash = Data(secretHash)
        m.scope = scope
        m.subjects = subjects.map { Data($0.bytes) }
        if let expiresAt { m.expiresAtMs = expiresAt }
        m.actor = actor
        m.name = name
        return m
    }

    /// The secret's hash is left out: it is of no use to a reader, and less exposure is better.
    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("token_id", id: token)
        fields.field("scope", scope)
        fields.field("subject_hashes", strings: subjects.map(\.description))
        fields.field("expires_at", time: expiresAt)
        fields.field("actor", actor)
        fields.field("name", name)
    }
}

extension TokenRevoked {
    init(_ m: Sessionstore_V1_TokenRevoked) throws {
        self.init(token: try UUID(wire: Array(m.tokenID), field: 8), actor: m.actor)
    }

    var message: Sessionstore_V1_TokenRevoked {
        var m = Sessionstore_V1_TokenRevoked()
        m.tokenID = Data(token.wireBytes)
        m.actor = actor
        return m
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("token_id", id: token)
        fields.field("actor", actor)
    }
}

extension IntegrityVerified {
    init(_ m: Sessionstore_V1_IntegrityVerified) throws {
        guard m.rootHash.count == 32 else { throw WireReader.Malformed(reason: "field 13 is not a 32-byte hash") }
        self.init(actor: m.actor, passed: m.passed, recordsChecked: m.recordsChecked, erasedRecords: m.erasedRecords,
                  treeSize: m.treeSize, rootHash: Array(m.rootHash), problemCount: m.problemCount,
                  firstProblem: m.hasFirstProblem ? m.firstProblem : nil, tookMilliseconds: m.tookMs)
    }

    var message: Sessionstore_V1_IntegrityVerified {
        var m = Sessionstore_V1_IntegrityVerified()
        m.actor = actor
        m.passed = passed
        m.recordsChecked = recordsChecked
        m.erasedRecords = erasedRecords
        m.treeSize = treeSize
        m.rootHash = Data(rootHash)
        m.problemCount = problemCount
        if let firstProblem { m.firstProblem = firstProblem }
        m.tookMs = tookMilliseconds
        return m
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("actor", actor)
        fields.field("passed", passed)
        fields.field("records_checked", Int(recordsChecked))
        fields.field("erased_records", Int(erasedRecords))
        fields.field("tree_size", Int(treeSize))
        fields.field("root_hash", Hex.string(rootHash))
        fields.field("problem_count", Int(problemCount))
        fields.field("first_problem", firstProblem)
        fields.field("took_ms", Int(tookMilliseconds))
    }
}

extension CheckpointIssued {
    init(_ m: Sessionstore_V1_CheckpointIssued) throws {
        guard m.rootHash.count == 32 else { throw WireReader.Malformed(reason: "field 10 is not a 32-byte hash") }
        self.init(actor: m.actor, treeSize: m.treeSize, rootHash: Array(m.rootHash), witnesses: m.witnesses)
    }

    var message: Sessionstore_V1_CheckpointIssued {
        var m = Sessionstore_V1_CheckpointIssued()
        m.actor = actor
        m.treeSize = treeSize
        m.rootHash = Data(rootHash)
        m.witnesses = witnesses
        return m
    }

    func write(to fields: inout some PayloadFieldWriter) {
        fields.field("actor", actor)
        fields.field("tree_size", Int(treeSize))
        fields.field("root_hash", Hex.string(rootHash))
        fields.field("witnesses", strings: witnesses)
    }
}
