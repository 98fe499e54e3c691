import EventLog
import Foundation
import Migrations
import Projections
import SessionLog
import SessionModel

/// What ``SubjectErasure/erase(_:reference:at:)`` did.
public struct ErasureReport: Hashable, Sendable {
    /// The person erased.
    public var subject: SubjectHash
    /// Sessions whose data keys were destroyed now.
    public var erased: [UUID]
    /// Sessions erased before (their keys were gone already).
    public var alreadyErased: [UUID]
    /// The position of the `subject.erased` event appended; nil when there was nothing left to erase.
    public var eventPosition: UInt64?
}

/// Erases a person's data from the append-only log by destroying the data keys of their sessions
/// (crypto-shredding): their transcripts, audio and every other event become unreadable by any
/// means, the session list keeps only the session id, the subject's hash and the status `erased`,
/// and the consent trail, sealed with the store's audit key, still proves what was consented and
/// when. The leaf hashes stay, so `verify` and checkpoints keep passing.
///
/// The order makes an interrupted erasure safe to repeat: first a `subject.erased` event naming the
/// sessions goes into the audit stream, then the keys are destroyed and the views updated in one
/// transaction. Run ``EventLog/compact(at:waitingUpTo:options:)`` afterwards so that no older page copy of a
/// key is left in the file, or call ``erase(userID:reference:at:in:waitingUpTo:stage:)``, which does both.
public struct SubjectErasure {
    /// The store erased from.
    public let log: EventLog

    /// An erasure over `log`.
    public init(log: EventLog) {
        self.log = log
    }

    /// Erases every session of `subject`.
    /// - Parameters:
    ///   - reference: the erasure request's reference (a ticket number), kept in the event; not personal data.
    ///   - time: when the erasure happened (ms since 1970), for the event.
    /// - Throws: ``ComplianceError`` with ``ComplianceError/Code/unknownSubject`` when the store holds
    ///   no session of `subject`, and with ``ComplianceError/Code/held`` (nothing erased) while a legal
    ///   hold covers the subject or a session of theirs not erased yet.
    @discardableResult
    public func erase(_ subject: SubjectHash, reference: String? = nil, at time: Int64) async throws -> ErasureReport {
        let runner = ProjectionRunner(log: log)
        try runner.catchUp()
        let sessions = try runner.sessions().filter { $0.subject == subject }.map(\.session).sorted { $0.uuidString < $1.uuidString }
        guard !sessions.isEmpty else {
            throw ComplianceError(.unknownSubject, "the store has no sessions of subject \(subject)")
        }
        var remaining: [UUID] = []
        var already: [UUID] = []
        for session in sessions {
            if try log.isErased(SessionStreams.session(session)) == true { already.append(session) } else { remaining.append(session) }
        }
        var report = ErasureReport(subject: subject, erased: remaining, alreadyErased: already)
        guard !remaining.isEmpty else { return report }
        let holds = LegalHolds(log: log)
        report.eventPosition = try await holds.whileAuditStreamStands { current, version in
            if let hold = LegalHolds.blocking(remaining, of: subject, in: current).first {
                throw ComplianceError(.held, "subject \(subject) is under \(hold.description); nothing was erased: "
                                      + "release the hold first (hold release \(hold.id.uuidString.lowercased()))")
            }
            return try await AuditStream.append(.subjectErased(SubjectErased(subject: subject, sessions: remaining, requestReference: reference)),
                                                at: time, expectedVersion: .exact(version), to: log)
        }
        try Self.shred(remaining, status: .erased, subject: subject, in: log)
        return report
    }

    /// Destroys the sessions' data keys and, in the same transaction, leaves in the views only what
    /// the shredding event says of them (the same rows a rebuild of the views makes). The subject's
    /// consent-trail rows are sealed again with fresh nonces, so that no byte string of a view row
    /// of theirs from before the erasure is left.
    static func shred(_ sessions: [UUID], status: SessionSummary.Status, subject: SubjectHash?, in log: EventLog) throws {
        let views = [ProjectionRunner.sessionsView, ProjectionRunner.transcriptsView, ProjectionRunner.consentView]
        try log.destroyKeys(of: sessions.map(SessionStreams.session), updatingViews: views) { views in
            for session in sessions {
                try views[0].put(session.wireBytes, SessionSummary.shredded(session, status: status, subject: subject).rowBytes)
                try views[1].removeRows(startingWith: session.wireBytes)
            }
            if let subject {
                for (key, value) in try views[2].rows(startingWith: subject.bytes) { try views[2].put(key, value) }
            }
        }
    }
}
