import EventLog
import Foundation
import Migrations
import Projections
import SessionLog
import SessionModel

/// `audit check`: reads the log once, in order, streaming, and folds every event into each rule
/// (pure folds, no clock: the time retention is judged against is given, or is the store time of
/// the last event). Records whose keys were destroyed cannot be read and are not seen, which is what the
/// erasure rules rely on: whatever is seen is readable.
///
/// ```swift
/// let violations = try ViolationCheck(log: log).run(asOf: nil)
/// let oneSession = try ViolationCheck(log: log).run(session: id)
/// ```
public struct ViolationCheck {
    /// The store checked.
    public let log: EventLog
    /// Events read and decoded at a time (the next batch is read while one is folded).
    public var batchSize = 32_768

    /// A check of `log`.
    public init(log: EventLog) {
        self.log = log
    }

    /// What the check found.
    public struct Report: Sendable {
        /// The violations, in log order of their (first) events.
        public var violations: [Violation]
        /// Events read (erased records are not counted: they cannot be read).
        public var eventsRead: UInt64
        /// The time retention was judged as of (ms since 1970).
        public var asOf: Int64
    }

    /// Checks every rule over the whole log, judging retention as of `asOf` (ms since 1970; default:
    /// the store time of the last event).
    public func run(asOf: Int64? = nil) throws -> Report {
        var fold = Fold()
        let reader = BatchPrefetcher(log: log, codec: SessionMigrations.codec, batchSize: batchSize)
        let end = try log.eventCount()
        var starts = stride(from: UInt64(0), to: end, by: batchSize).makeIterator()
        var pending = [starts.next()].compactMap { $0 }.map(reader.prefetch)
        while !pending.isEmpty {
            let batch = try pending.removeFirst().wait()
            if let start = starts.next() { pending.append(reader.prefetch(from: start)) }
            for event in batch { fold.add(event) }
        }
        let time = try asOf ?? log.lastRecordedAtMilliseconds() ?? 0
        return Report(violations: fold.violations(asOf: time), eventsRead: fold.read, asOf: time)
    }

    /// The violations of one session, exactly those ``run(asOf:)`` finds for it, from what they depend on
    /// alone: the session's own events, its subject's consent trail, and the store's events the rules read
    /// (retention policies, purges, erasures, holds: ``RuleEventsView``), folded in log order. What it reads
    /// grows with the session, its subject's consents and those store events, not with the log or the reads
    /// recorded: a session's report and the console's session page use it.
    public func run(session: UUID, asOf: Int64? = nil) throws -> Report {
        let codec = SessionMigrations.codec
        let end = try log.eventCount()
        var fold = Fold()
        // The store's events and the consent trails read so far, in log order, folded as the session's events pass them.
        var others = try RuleEventsView(log: log).events().events.filter { $0.position < end }
        var next = others.startIndex
        var subjects: Set<SubjectHash> = []
        let stream = SessionStreams.session(session)
        let version = try log.streamMetadata(stream)?.version ?? 0
        for first in stride(from: UInt64(0), to: version, by: batchSize) {
            let batch = try log.readStream(stream, from: first, maxCount: batchSize, skippingErased: true) { try codec.decode($0) }
            for event in batch where event.position < end {
                // A subject the session names: its consent trail is read now. The consent states it changes were
                // not read by anything of this session before, so its events before this one are folded at once.
                if let subject = Self.subject(namedBy: event), subjects.insert(subject).inserted {
                    let trail = try consentTrail(of: subject, session: session, before: end).sorted { $0.position < $1.position }
                    let earlier = trail.prefix { $0.position < event.position }
                    for copy in earlier { fold.add(copy) }
                    others.replaceSubrange(next..., with: (others[next...] + trail[earlier.endIndex...]).sorted { $0.position < $1.position })
                }
                while next < others.endIndex, others[next].position < event.position {
                    fold.add(others[next])
                    next += 1
                }
                fold.add(event)
            }
        }
        for event in others[next...] { fold.add(event) }
        let time = try asOf ?? log.lastRecordedAtMilliseconds() ?? 0
        return Report(violations: fold.violations(asOf: time).filter { $0.session == session }, eventsRead: fold.read, asOf: time)
    }

    /// The subject an event names as its session's (``ConsentLedger``): a start's, or a consent's.
    private static func subject(namedBy event: RecordedSessionEvent) -> SubjectHash? {
        switch event.event.payload {
        case .sessionStarted(let started): started.subject
        case .consentGranted(let change), .consentRevoked(let change): change.subject
        default: nil
        }
    }

    /// The subject's consent events, from their copies in its consent stream. The whole check counts whichever
    /// record of a consent event comes first in the log, its copy or the original in its session; so a copy
    /// whose original (in another session than `session`, whose events are read as they are) is readable and
    /// earlier stands at the original's position.
    private func consentTrail(of subject: SubjectHash, session: UUID, before end: UInt64) throws -> [RecordedSessionEvent] {
        var copies = try log.readStream(SessionStreams.consent(of: subject), skippingErased: true) { try SessionMigrations.codec.decode($0) }
            .filter { $0.position < end }
        let elsewhere = Dictionary(grouping: copies.indices.filter { copies[$0].event.session != session }) { copies[$0].event.session }
        for (original, indices) in elsewhere {
            let stream = SessionStreams.session(original)
            guard try log.isErased(stream) == false else { continue }  // an erased session's original is not seen
            let positions = try log.storedPositions(of: stream, withIDs: Set(indices.map { copies[$0].event.id }))
            for index in indices {
                if let position = positions[copies[index].event.id], position < copies[index].position {
                    copies[index].position = position
                }
            }
        }
        return copies
    }

    /// Every rule, folded over events in log order.
    private struct Fold {
        private var ledger = ConsentLedger()
        private var rules: [any ComplianceRule] = [
            MissingConsentRule(.recordingWithoutConsent, consentType: "audio_recording", types: [.recordingStarted, .recordingChunk]),
            MissingConsentRule(.transcriptWithoutConsent, consentType: "transcription",
                               types: [.transcriptPartial, .transcriptCommitted, .transcriptCorrected]),
            MissingConsentRule(.playbackWithoutConsent, consentType: "audio_recording", types: [.playbackStarted, .playbackSeeked]),
            AfterRevocationRule(),
            LateConsentRule(),
            RetentionRule(),
            ErasedDataRule(),
            ClockBackwardsRule(),
            HoldReviewRule(),
        ]
        private(set) var read: UInt64 = 0

        mutating func add(_ event: RecordedSessionEvent) {
            read += 1
            ledger.apply(event)
            for index in rules.indices { rules[index].fold(event, ledger: ledger) }
        }

        func violations(asOf time: Int64) -> [Violation] {
            rules.flatMap { $0.violations(asOf: time) }
                .sorted { ($0.position, $0.rule.rawValue) < ($1.position, $1.rule.rawValue) }
        }
    }
}
