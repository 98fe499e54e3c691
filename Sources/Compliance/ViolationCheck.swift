import EventLog
import Foundation
import Migrations
import Projections
import SessionModel

/// `audit check`: reads the log once, in order, streaming, and folds every event into each rule
/// (pure folds, no clock: the time retention is judged against is given, or is the store time of
/// the last event). Records whose keys were destroyed cannot be read and are not seen, which is what the
/// erasure rules rely on: whatever is seen is readable.
///
/// ```swift
/// let violations = try ViolationCheck(log: log).run(asOf: nil)
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
        var ledger = ConsentLedger()
        var rules: [any ComplianceRule] = [
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
        let reader = BatchPrefetcher(log: log, codec: SessionMigrations.codec, batchSize: batchSize)
        let end = try log.eventCount()
        var starts = stride(from: UInt64(0), to: end, by: batchSize).makeIterator()
        var pending = [starts.next()].compactMap { $0 }.map(reader.prefetch)
        var read: UInt64 = 0
        while !pending.isEmpty {
            let batch = try pending.removeFirst().wait()
            if let start = starts.next() { pending.append(reader.prefetch(from: start)) }
            for event in batch {
                read += 1
                ledger.apply(event)
                for index in rules.indices { rules[index].fold(event, ledger: ledger) }
            }
        }
        let time = try asOf ?? log.lastRecordedAtMilliseconds() ?? 0
        let violations = rules.flatMap { $0.violations(asOf: time) }
            .sorted { ($0.position, $0.rule.rawValue) < ($1.position, $1.rule.rawValue) }
        return Report(violations: violations, eventsRead: read, asOf: time)
    }
}
