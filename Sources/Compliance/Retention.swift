import EventLog
import Foundation
import Migrations
import Projections
import SessionLog
import SessionModel

/// Retention: a policy kept in the store (a `retention.policy_set` event in the audit stream; the
/// latest applies) and its application, which crypto-shreds every session that ended before the
/// cutoff (as an erasure does) and records a `retention.purged` event naming the sessions, no
/// personal data.
public struct Retention {
    /// The store whose sessions are kept or purged.
    public let log: EventLog

    /// Retention over `log`.
    public init(log: EventLog) {
        self.log = log
    }

    /// Stores `policy` as the store's retention policy from now on.
    @discardableResult
    public func setPolicy(_ policy: RetentionPolicy, at time: Int64) async throws -> UInt64 {
        guard policy.maxAge > 0, (policy.partialsMaxAge ?? 1) > 0 else {
            throw ComplianceError(.invalidRequest, "a retention period must be longer than zero")
        }
        return try await AuditStream.append(.retentionPolicySet(policy), at: time, to: log)
    }

    /// The policy in force: the latest one set; nil when none was.
    public func policy() throws -> RetentionPolicy? {
        try AuditStream.latest(in: log) { payload in
            if case .retentionPolicySet(let policy) = payload { policy } else { nil }
        }
    }

    /// What ``apply(_:at:)`` would purge.
    public struct Plan: Sendable {
        /// The maximum age applied, in ms.
        public var maxAge: Int64
        /// The time the plan is made as of (ms since 1970).
        public var asOf: Int64
        /// Sessions that ended before this time (client clock, ms since 1970) go.
        public var cutoff: Int64
        /// The sessions to purge, in the order of their end: those that ended before the cutoff,
        /// and any whose purge was recorded but interrupted before their keys were destroyed.
        public var sessions: [SessionSummary]
        /// Sessions that ended before this time keep no transcript partials (nil: no such period).
        public var partialsCutoff: Int64?
        /// The sessions, kept otherwise, whose transcript partials go (their discardable key).
        public var partialsSessions: [SessionSummary] = []
        /// Sessions due (whole, or their partials) that a legal hold keeps: left alone.
        public var held: [HeldSession] = []
    }

    /// A session retention would purge (or drop the partials of) but a legal hold keeps.
    public struct HeldSession: Sendable {
        public var summary: SessionSummary
        /// The open holds that keep it.
        public var holds: [LegalHold]
        /// Only its partials were due.
        public var partialsOnly: Bool
    }

    /// The sessions that `maxAge` (default: the stored policy's) purges as of `asOf` (default: the
    /// store time of the last event; no clock is read).
    /// - Throws: ``ComplianceError`` when no maximum age is given and none is stored.
    public func plan(maxAge: Int64? = nil, partialsMaxAge: Int64? = nil, asOf: Int64? = nil) throws -> Plan {
        let stored = try policy()
        let partialsMaxAge = partialsMaxAge ?? stored?.partialsMaxAge
        guard let maxAge = maxAge ?? stored?.maxAge else {
            throw ComplianceError(.invalidRequest, "no retention policy is set: run `retention set --max-age` or give --max-age")
        }
        guard maxAge > 0, (partialsMaxAge ?? 1) > 0 else {
            throw ComplianceError(.invalidRequest, "a retention period must be longer than zero")
        }
        let runner = ProjectionRunner(log: log)
        try runner.catchUp()
        let time = try asOf ?? log.lastRecordedAtMilliseconds() ?? 0
        let cutoff = time - maxAge
        let partialsCutoff = partialsMaxAge.map { time - $0 }
        var due: [SessionSummary] = []
        var partialsDue: [SessionSummary] = []
        for summary in try runner.sessions() {
            if summary.isShredded {
                if try log.isErased(SessionStreams.session(summary.session)) == false { due.append(summary) }
            } else if let ended = summary.endedAt, ended < cutoff {
                due.append(summary)
            } else if let ended = summary.endedAt, let partialsCutoff, ended < partialsCutoff,
                      try log.hasDiscardableKey(SessionStreams.session(summary.session)) {
                partialsDue.append(summary)
            }
        }
        let byEnd: (SessionSummary, SessionSummary) -> Bool = {
            ($0.endedAt ?? .min, $0.session.uuidString) < ($1.endedAt ?? .min, $1.session.uuidString)
        }
        var plan = Plan(maxAge: maxAge, asOf: time, cutoff: cutoff, sessions: due.sorted(by: byEnd), partialsCutoff: partialsCutoff,
                        partialsSessions: partialsDue.sorted(by: byEnd))
        let holds = try LegalHolds(log: log).open()
        Self.setAside(&plan, heldBy: holds, partials: false)
        Self.setAside(&plan, heldBy: holds, partials: true)
        return plan
    }

    /// Moves the plan's sessions (or, with `partials`, its partials sessions) that `holds` cover to
    /// ``Plan/held``. A session whose purge was recorded already (and interrupted) is not set aside: the
    /// record says it is gone.
    static func setAside(_ plan: inout Plan, heldBy holds: [LegalHold], partials: Bool) {
        var held: [HeldSession] = []
        func keep(_ summary: SessionSummary) -> Bool {
            let holding = summary.isShredded ? [] : holds.filter { $0.isOpen && $0.covers(summary.session, of: summary.subject) }
            if !holding.isEmpty { held.append(HeldSession(summary: summary, holds: holding, partialsOnly: partials)) }
            return !holding.isEmpty
        }
        if partials { plan.partialsSessions.removeAll(where: keep) } else { plan.sessions.removeAll(where: keep) }
        plan.held += held
    }

    /// Purges the plan's sessions: records `retention.purged`, then destroys their keys and updates
    /// the views in one transaction. Compact the store afterwards (``EventLog/compact(at:waitingUpTo:options:)``),
    /// or call ``purge(in:maxAge:partialsMaxAge:asOf:at:waitingUpTo:stage:)``, which does both.
    ///
    /// The legal holds are read again, in step with the record: a session a hold placed since the plan
    /// covers is set aside (``Plan/held``), not purged. Returns the plan as applied and the position of
    /// the first event, nil when there was nothing to purge.
    @discardableResult
    public func apply(_ plan: Plan, at time: Int64) async throws -> (plan: Plan, eventPosition: UInt64?) {
        var plan = plan
        var first: UInt64?
        let holds = LegalHolds(log: log)
        if !plan.sessions.isEmpty {
            let recorded: UInt64? = try await holds.whileAuditStreamStands { current, version in
                Self.setAside(&plan, heldBy: current, partials: false)
                guard !plan.sessions.isEmpty else { return nil }
                let purge = RetentionPurged(policy: "max-age \(plan.maxAge) ms", cutoff: plan.cutoff, sessions: plan.sessions.map(\.session))
                return try await AuditStream.append(.retentionPurged(purge), at: time, expectedVersion: .exact(version), to: log)
            }
            if let recorded {
                first = recorded
                try SubjectErasure.shred(plan.sessions.map(\.session), status: .purged, subject: nil, in: log)
            }
        }
        if !plan.partialsSessions.isEmpty, let partialsCutoff = plan.partialsCutoff {
            let recorded: UInt64? = try await holds.whileAuditStreamStands { current, version in
                Self.setAside(&plan, heldBy: current, partials: true)
                guard !plan.partialsSessions.isEmpty else { return nil }
                let purge = RetentionPurged(policy: "partials max-age \(plan.asOf - partialsCutoff) ms", cutoff: partialsCutoff,
                                            sessions: plan.partialsSessions.map(\.session), partialsOnly: true)
                return try await AuditStream.append(.retentionPurged(purge), at: time, expectedVersion: .exact(version), to: log)
            }
            if let recorded {
                first = first ?? recorded
                try log.destroyDiscardableKeys(of: plan.partialsSessions.map { SessionStreams.session($0.session) })
                try ProjectionRunner(log: log).catchUp()  // the transcripts view forgets the partials at once
            }
        }
        return (plan, first)
    }
}
