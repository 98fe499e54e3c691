import EventLog
import Foundation
import Migrations
import Projections
import SessionLog
import SessionModel

/// One read or export of session content, as the access log has it.
public struct AccessEntry: Hashable, Sendable {
    /// The log position of its `access.read` or `export.performed` event.
    public var position: UInt64
    /// When it happened (the reading command's clock, ms since 1970).
    public var at: Int64
    /// Who read.
    public var actor: String
    /// Why, when they said.
    public var purpose: String?
    /// What read: a command (`transcript`, `events`, `audio`, `report`, `replay`, `compare`), or
    /// `export` with its format (`export json`, `export bundle`).
    public var command: String
    /// The sessions read.
    public var sessions: [UUID]
    /// The person, for an export of a person's data.
    public var subject: SubjectHash?
}

/// The store's access log (HIPAA 45 CFR 164.312(b): record and examine activity on protected data): an
/// `access.read` event in the audit stream for every command that decrypts session content, next to the
/// `export.performed` events of exports; and the policy saying whether a reader must give a purpose.
///
/// Reads are decided and recorded through ``ReadAccess``, *before* anything is output, so that no content
/// leaves the store unrecorded, not even when the process is killed halfway.
public struct AccessLog {
    /// The store whose reads are logged.
    public let log: EventLog

    /// The access log of `log`.
    public init(log: EventLog) {
        self.log = log
    }

    /// The policy in force: the latest one set; by default no purpose is required. Read from the view
    /// `access-policy` and the audit events after it (``AccessPolicyView``), not the whole audit stream.
    public func policy() throws -> AccessPolicy {
        try AccessPolicyView(log: log).current().policy ?? AccessPolicy(purposeRequired: false)
    }

    /// Stores `policy` as the store's access policy from now on.
    @discardableResult
    public func setPolicy(_ policy: AccessPolicy, at time: Int64) async throws -> UInt64 {
        try await AuditStream.append(.accessPolicySet(policy), at: time, to: log)
    }

    /// Refuses a read without a purpose when the policy requires one (``ReadAccess`` asks, before any read).
    /// - Throws: ``ComplianceError/Code/purposeRequired``.
    func check(purpose: String?) throws {
        guard try policy().purposeRequired, (purpose ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return }
        throw ComplianceError(.purposeRequired, "this store's access policy requires a purpose for every read: say why "
                                                + "(--purpose on the command line, purpose= in a request)")
    }

    /// Records `read` (after ``check(purpose:)``) and returns the position of its event. Reads are recorded
    /// through ``ReadAccess``, which decides them first.
    @discardableResult
    func record(_ read: AccessRead, at time: Int64) async throws -> UInt64 {
        try check(purpose: read.purpose)
        return try await AuditStream.append(.accessRead(read), at: time, to: log)
    }

    /// Records `export` (after ``check(purpose:)``) and returns the position of its event.
    @discardableResult
    func record(_ export: ExportPerformed, at time: Int64) async throws -> UInt64 {
        try check(purpose: export.purpose)
        return try await AuditStream.append(.exportPerformed(export), at: time, to: log)
    }

    /// The reads and exports recorded, in log order; only those of `subject`'s sessions (or of a
    /// subject export of theirs), of `session`, or by `actor`, when given.
    public func entries(subject: SubjectHash? = nil, session: UUID? = nil, actor: String? = nil) throws -> [AccessEntry] {
        var theirs: Set<UUID> = []
        if let subject {
            let runner = ProjectionRunner(log: log)
            try runner.catchUp()
            theirs = Set(try runner.sessions().filter { $0.subject == subject }.map(\.session))
        }
        return try AuditStream.events(in: log).compactMap { recorded -> AccessEntry? in
            let at = recorded.event.occurredAt
            let entry: AccessEntry
            switch recorded.event.payload {
            case .accessRead(let read):
                entry = AccessEntry(position: recorded.position, at: at, actor: read.actor, purpose: read.purpose, command: read.command,
                                    sessions: read.sessions)
            case .exportPerformed(let export):
                entry = AccessEntry(position: recorded.position, at: at, actor: export.actor, purpose: export.purpose,
                                    command: "export \(export.format)", sessions: export.sessions, subject: export.subject)
            default:
                return nil
            }
            if let subject, entry.subject != subject, !entry.sessions.contains(where: theirs.contains) { return nil }
            if let session, !entry.sessions.contains(session) { return nil }
            if let actor, entry.actor != actor { return nil }
            return entry
        }
    }
}
