import Foundation
import Output
import SessionLog
import SessionModel
import TimeCoding

/// One rule of `audit check`: a fold over the log's events in order, given the consent ledger as it
/// stands just before each event, that says at the end what it found.
protocol ComplianceRule {
    mutating func fold(_ event: RecordedSessionEvent, ledger: ConsentLedger)
    func violations(asOf: Int64) -> [Violation]
}

/// The first event of a session that broke a rule, and how many more did.
struct FirstOffence {
    var position: UInt64
    var occurredAt: Int64
    var type: EventType
    var more = 0

    init(_ event: RecordedSessionEvent) {
        position = event.position
        occurredAt = event.event.occurredAt
        type = event.event.type
    }

    var followers: String { more == 0 ? "" : "; \(more) more such event\(more == 1 ? "" : "s") followed" }
}

/// Recording, transcribing or playing while the subject has never granted the consent it needs.
struct MissingConsentRule: ComplianceRule {
    let rule: Violation.Rule
    let consentType: String
    let types: Set<EventType>
    private var offences: [UUID: FirstOffence] = [:]

    init(_ rule: Violation.Rule, consentType: String, types: Set<EventType>) {
        self.rule = rule
        self.consentType = consentType
        self.types = types
    }

    mutating func fold(_ event: RecordedSessionEvent, ledger: ConsentLedger) {
        guard !event.isCopy, types.contains(event.event.type),
              ledger.state(consentType, session: event.event.session) == .never else { return }
        if offences[event.event.session] == nil { offences[event.event.session] = FirstOffence(event) } else { offences[event.event.session]!.more += 1 }
    }

    func violations(asOf: Int64) -> [Violation] {
        offences.map { session, first in
            Violation(rule: rule, session: session, position: first.position, occurredAt: first.occurredAt,
                      detail: "\(first.type.rawValue) without \(consentType) consent ever granted by the subject\(first.followers)")
        }
    }
}

/// Any event needing a consent after the subject revoked it (until granted again).
struct AfterRevocationRule: ComplianceRule {
    private struct Key: Hashable { var session: UUID; var consentType: String }
    private var offences: [Key: (FirstOffence, revokedAt: UInt64)] = [:]

    mutating func fold(_ event: RecordedSessionEvent, ledger: ConsentLedger) {
        guard !event.isCopy, let needed = ConsentLedger.consentNeeded(by: event.event.type),
              case .revoked(let revokedAt) = ledger.state(needed, session: event.event.session) else { return }
        let key = Key(session: event.event.session, consentType: needed)
        if offences[key] == nil { offences[key] = (FirstOffence(event), revokedAt) } else { offences[key]!.0.more += 1 }
    }

    func violations(asOf: Int64) -> [Violation] {
        offences.map { key, value in
            Violation(rule: .eventAfterRevocation, session: key.session, position: value.0.position, occurredAt: value.0.occurredAt,
                      detail: "\(value.0.type.rawValue) after the subject revoked \(key.consentType) consent (position \(value.revokedAt))\(value.0.followers)")
        }
    }
}

/// The grant in effect when a session first used it was, by the client's clock, given after that use.
struct LateConsentRule: ComplianceRule {
    private struct Key: Hashable { var session: UUID; var consentType: String }
    private var checked: Set<Key> = []
    private var found: [Violation] = []

    mutating func fold(_ event: RecordedSessionEvent, ledger: ConsentLedger) {
        guard !event.isCopy, let needed = ConsentLedger.consentNeeded(by: event.event.type),
              checked.insert(Key(session: event.event.session, consentType: needed)).inserted,
              case .granted(let grantPosition, let grantedAt) = ledger.state(needed, session: event.event.session),
              grantedAt > event.event.occurredAt else { return }
        found.append(Violation(
            rule: .consentGrantedAfterUse, session: event.event.session, position: event.position, occurredAt: event.event.occurredAt,
            detail: "\(event.event.type.rawValue) happened \(grantedAt - event.event.occurredAt) ms before the \(needed) consent in effect was granted (position \(grantPosition), client clock)"))
    }

    func violations(asOf: Int64) -> [Violation] { found }
}

/// Sessions still readable although they ended longer ago than the retention policy allows, and
/// transcript partials still readable past the policy's period for partials.
struct RetentionRule: ComplianceRule {
    private var policy: RetentionPolicy?
    private var ended: [UUID: (position: UInt64, at: Int64, subject: SubjectHash?)] = [:]
    private var shredded: Set<UUID> = []
    private var readablePartials: [UUID: Int] = [:]
    /// A session a legal hold keeps is kept lawfully past its retention.
    private var holds = HoldFold()

    mutating func fold(_ event: RecordedSessionEvent, ledger: ConsentLedger) {
        holds.fold(event)
        switch event.event.payload {
        case .retentionPolicySet(let set): policy = set
        case .sessionEnded where !event.isCopy:
            ended[event.event.session] = (event.position, event.event.occurredAt, ledger.subjectOfSession[event.event.session])
        case .transcriptPartial where !event.isCopy: readablePartials[event.event.session, default: 0] += 1
        case .retentionPurged(let purged) where !purged.partialsOnly: shredded.formUnion(purged.sessions)
        case .subjectErased(let erased): shredded.formUnion(erased.sessions)
        default: break
        }
    }

    func violations(asOf: Int64) -> [Violation] {
        guard let policy else { return [] }
        return ended.compactMap { session, end -> Violation? in
            guard !shredded.contains(session), !holds.open.contains(where: { $0.covers(session, of: end.subject) }) else { return nil }
            let ago = "the session ended \(DurationText.text(asOf - end.at)) before the check's time (\(RFC3339.string(asOf)))"
            if end.at < asOf - policy.maxAge {
                return Violation(rule: .retentionExceeded, session: session, position: end.position, occurredAt: end.at,
                                 detail: "\(ago); the retention policy keeps sessions \(DurationText.text(policy.maxAge))")
            }
            if let partialsMaxAge = policy.partialsMaxAge, end.at < asOf - partialsMaxAge, let count = readablePartials[session] {
                return Violation(rule: .retentionExceeded, session: session, position: end.position, occurredAt: end.at,
                                 detail: "\(ago) and \(count) transcript partials are still readable; the policy keeps partials \(DurationText.text(partialsMaxAge))")
            }
            return nil
        }
    }
}

/// Anything readable of a session that an erasure or a purge destroyed the keys of, or of an erased
/// subject's session that the erasure did not name.
struct ErasedDataRule: ComplianceRule {
    private var firstReadable: [UUID: FirstOffence] = [:]
    private var firstReadablePartial: [UUID: FirstOffence] = [:]
    private var shredded: [UUID: String] = [:]
    private var partialsDiscarded: [UUID: UInt64] = [:]
    private var subjectSessions: [SubjectHash: Set<UUID>] = [:]

    mutating func fold(_ event: RecordedSessionEvent, ledger: ConsentLedger) {
        let session = event.event.session
        if !event.isCopy, !SessionStreams.holdsStoreEvents(event.event.session) {
            if firstReadable[session] == nil { firstReadable[session] = FirstOffence(event) } else { firstReadable[session]!.more += 1 }
            if let subject = ledger.subjectOfSession[session] { subjectSessions[subject, default: []].insert(session) }
            if event.event.type == .transcriptPartial {
                if firstReadablePartial[session] == nil { firstReadablePartial[session] = FirstOffence(event) } else { firstReadablePartial[session]!.more += 1 }
            }
        }
        switch event.event.payload {
        case .subjectErased(let erased):
            for session in erased.sessions { shredded[session] = "its subject was erased (position \(event.position))" }
            if let subject = erased.subject {
                for session in subjectSessions[subject] ?? [] where shredded[session] == nil {
                    shredded[session] = "its subject was erased (position \(event.position)) but the erasure did not name it"
                }
            }
        case .retentionPurged(let purged) where purged.partialsOnly:
            for session in purged.sessions { partialsDiscarded[session] = event.position }
        case .retentionPurged(let purged):
            for session in purged.sessions { shredded[session] = "it was purged by retention (position \(event.position))" }
        default: break
        }
    }

    func violations(asOf: Int64) -> [Violation] {
        let sessions = shredded.compactMap { session, why -> Violation? in
            guard let first = firstReadable[session] else { return nil }
            return Violation(rule: .erasedDataReadable, session: session, position: first.position, occurredAt: first.occurredAt,
                             detail: "\(first.more + 1) event\(first.more == 0 ? " is" : "s are") still readable although \(why)")
        }
        let partials = partialsDiscarded.compactMap { session, position -> Violation? in
            guard shredded[session] == nil, let first = firstReadablePartial[session] else { return nil }
            return Violation(rule: .erasedDataReadable, session: session, position: first.position, occurredAt: first.occurredAt,
                             detail: "\(first.more + 1) transcript partial\(first.more == 0 ? " is" : "s are") still readable although retention discarded them (position \(position))")
        }
        return sessions + partials
    }
}

/// The legal holds as the audit stream has them so far, each with its release once released: the one
/// reading of `hold.placed` and `hold.released` (``LegalHolds``, the rules of `audit check`).
struct HoldFold {
    private(set) var holds: [LegalHold] = []

    var open: [LegalHold] { holds.filter(\.isOpen) }

    mutating func fold(_ event: RecordedSessionEvent) {
        switch event.event.payload {
        case .holdPlaced(let placed):
            holds.append(LegalHold(id: placed.hold, subject: placed.subject, sessions: placed.sessions, reason: placed.reason,
                                   placedBy: placed.actor, placedAt: event.event.occurredAt, position: event.position, reviewBy: placed.reviewBy))
        case .holdReleased(let released):
            // A release naming no open hold means nothing (FORMAT.md §5.5).
            if let index = holds.firstIndex(where: { $0.id == released.hold && $0.isOpen }) {
                holds[index].release = LegalHold.Release(reason: released.reason, actor: released.actor, at: event.event.occurredAt,
                                                         position: event.position)
            }
        default:
            break
        }
    }
}

/// A legal hold still in force after the review date it was placed with: holds are meant to end with
/// the matter, and one forgotten keeps data past every retention period.
struct HoldReviewRule: ComplianceRule {
    private var holds = HoldFold()

    mutating func fold(_ event: RecordedSessionEvent, ledger: ConsentLedger) {
        holds.fold(event)
    }

    func violations(asOf: Int64) -> [Violation] {
        holds.open.compactMap { hold in
            guard let reviewBy = hold.reviewBy, reviewBy < asOf else { return nil }
            return Violation(rule: .holdReviewOverdue, session: SessionStreams.audit.uuid, position: hold.position, occurredAt: hold.placedAt,
                             detail: "legal hold \(hold.id.uuidString.lowercased()) (\(hold.reason)) was to be reviewed by "
                                + "\(RFC3339.string(reviewBy)) and is still in force at the check's time (\(RFC3339.string(asOf)))")
        }
    }
}
