import EventLog
import Foundation
import Migrations
import Output
import Projections
import SessionLog
import SessionModel
import TimeCoding

/// A legal hold as the store's audit stream tells it: placed (`hold.placed`), and perhaps released
/// (`hold.released`). While it is open, retention skips the sessions it covers and erasure refuses them.
public struct LegalHold: Hashable, Sendable, CustomStringConvertible {
    /// The hold's id.
    public var id: UUID
    /// The person held (every session of theirs, present and future); nil for a hold on sessions.
    public var subject: SubjectHash?
    /// The sessions held; empty for a hold on a person.
    public var sessions: [UUID]
    /// Why it was placed: a matter or case reference.
    public var reason: String
    /// Who placed it.
    public var placedBy: String
    /// When it was placed (ms since 1970).
    public var placedAt: Int64
    /// The log position of its `hold.placed` event: `prove` gives an inclusion proof of it.
    public var position: UInt64
    /// When it should be reviewed (ms since 1970), if a date was set.
    public var reviewBy: Int64?
    /// Its release; nil while it is open.
    public var release: Release?

    /// How a hold was released.
    public struct Release: Hashable, Sendable {
        public var reason: String
        public var actor: String
        public var at: Int64
        /// The log position of the `hold.released` event.
        public var position: UInt64
    }

    /// Whether the hold is in force.
    public var isOpen: Bool { release == nil }

    /// Whether the hold covers `session` of `subject`.
    public func covers(_ session: UUID, of subject: SubjectHash?) -> Bool {
        sessions.contains(session) || (self.subject != nil && self.subject == subject)
    }

    /// One sentence for a refusal: which hold, since when, by whom, why.
    public var description: String {
        "legal hold \(id.uuidString.lowercased()) (placed \(RFC3339.string(placedAt)) by \(placedBy): \(reason))"
    }
}

/// What a hold is placed on.
public enum HoldTarget: Hashable, Sendable {
    /// A person: every session of theirs, now and later.
    case subject(SubjectHash)
    /// These sessions.
    case sessions([UUID])
}

/// Legal holds: placing, releasing and listing them, and the open holds retention and erasure obey.
/// Holds live in the audit stream (sealed with the audit key, so they outlive erasure, and covered by
/// the Merkle tree like consent).
public struct LegalHolds {
    /// The store held in.
    public let log: EventLog

    /// Holds over `log`.
    public init(log: EventLog) {
        self.log = log
    }

    /// Every hold placed, in the order placed, with its release if it was released.
    public func all() throws -> [LegalHold] {
        try read().holds
    }

    /// The holds in force.
    public func open() throws -> [LegalHold] {
        try all().filter(\.isOpen)
    }

    /// Places a hold on `target`.
    /// - Throws: ``ComplianceError``: ``ComplianceError/Code/invalidRequest`` for an empty reason or a
    ///   review date not after `time`; ``ComplianceError/Code/unknownSession`` or
    ///   ``ComplianceError/Code/unknownSubject`` when the store holds nothing of the target, or only
    ///   what was erased or purged already.
    @discardableResult
    public func place(on target: HoldTarget, reason: String, actor: String, reviewBy: Int64? = nil, at time: Int64) async throws -> LegalHold {
        let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty else { throw ComplianceError(.invalidRequest, "a legal hold needs a reason (a matter or case reference)") }
        if let reviewBy, reviewBy <= time {
            throw ComplianceError(.invalidRequest, "the review date \(RFC3339.string(reviewBy)) is not in the future")
        }
        let runner = ProjectionRunner(log: log)
        try runner.catchUp()
        let summaries = try runner.sessions()
        let placed: HoldPlaced
        switch target {
        case .subject(let subject):
            let theirs = summaries.filter { $0.subject == subject }
            guard !theirs.isEmpty else { throw ComplianceError(.unknownSubject, "the store has no sessions of subject \(subject)") }
            guard theirs.contains(where: { !$0.isShredded }) else {
                throw ComplianceError(.unknownSubject, "every session of subject \(subject) was erased or purged already: nothing is left to hold")
            }
            placed = HoldPlaced(hold: UUID(), subject: subject, reason: reason, actor: actor, reviewBy: reviewBy)
        case .sessions(let sessions):
            guard !sessions.isEmpty else { throw ComplianceError(.invalidRequest, "a legal hold names a subject or at least one session") }
            let byID = Dictionary(summaries.map { ($0.session, $0) }, uniquingKeysWith: { first, _ in first })
            for session in sessions {
                guard let summary = byID[session] else {
                    throw ComplianceError(.unknownSession, "the store has no session \(session.uuidString.lowercased())")
                }
                if summary.isShredded {
                    throw ComplianceError(.unknownSession, "session \(session.uuidString.lowercased()) was \(summary.status.rawValue) already: "
                                          + "nothing of it is left to hold")
                }
            }
            var seen = Set<UUID>()
            placed = HoldPlaced(hold: UUID(), sessions: sessions.filter { seen.insert($0).inserted }, reason: reason, actor: actor,
                                reviewBy: reviewBy)
        }
        let position = try await AuditStream.append(.holdPlaced(placed), at: time, to: log)
        return LegalHold(id: placed.hold, subject: placed.subject, sessions: placed.sessions, reason: reason, placedBy: actor,
                         placedAt: time, position: position, reviewBy: reviewBy)
    }

    /// Releases the open hold `id`.
    /// - Throws: ``ComplianceError/Code/unknownHold`` when no hold has that id, and
    ///   ``ComplianceError/Code/invalidRequest`` when it was released already.
    @discardableResult
    public func release(_ id: UUID, reason: String, actor: String, at time: Int64) async throws -> LegalHold {
        try await whileAuditStreamStands { holds, version in
            guard var hold = holds.first(where: { $0.id == id }) else {
                throw ComplianceError(.unknownHold, "the store has no legal hold \(id.uuidString.lowercased())")
            }
            if let release = hold.release {
                throw ComplianceError(.invalidRequest, "legal hold \(id.uuidString.lowercased()) was released already, "
                                      + "\(RFC3339.string(release.at)) by \(release.actor)")
            }
            let position = try await AuditStream.append(.holdReleased(HoldReleased(hold: id, reason: reason, actor: actor)), at: time,
                                                        expectedVersion: .exact(version), to: log)
            hold.release = LegalHold.Release(reason: reason, actor: actor, at: time, position: position)
            return hold
        }
    }

    /// The open holds that cover any of `sessions` of `subject`.
    static func blocking(_ sessions: [UUID], of subject: SubjectHash, in holds: [LegalHold]) -> [LegalHold] {
        holds.filter { hold in hold.isOpen && sessions.contains { hold.covers($0, of: subject) } }
    }

    /// Runs `body` with the holds and the audit stream's version it read them at; `body` appends to the
    /// audit stream expecting that version. When another append came first (a hold placed meanwhile,
    /// say), it reads again and runs again, so that no decision is made on holds that changed under it.
    func whileAuditStreamStands<R>(_ body: ([LegalHold], UInt64) async throws -> R) async throws -> R {
        var attempts = 0
        while true {
            let (holds, version) = try read()
            do {
                return try await body(holds, version)
            } catch let error as EventLogError where error.code == .wrongExpectedVersion && error.stream == SessionStreams.audit && attempts < 20 {
                attempts += 1
            }
        }
    }

    private func read() throws -> (holds: [LegalHold], version: UInt64) {
        let events = try AuditStream.events(in: log)
        var fold = HoldFold()
        for recorded in events { fold.fold(recorded) }
        return (fold.holds, UInt64(events.count))
    }
}
