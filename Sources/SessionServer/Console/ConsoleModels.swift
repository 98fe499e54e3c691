import Compliance
import EventLog
import Foundation
import HexCoding
import Output
import Projections
import Replay
import SessionModel
import TimeCoding

// What each console template renders: plain values, already formatted, named as the templates name them.

struct Choice {
    var value: String
    var label: String
    var selected: Bool
}

struct SessionsPage {
    var actor: String
    var sessionsPage = true
    var q: String
    var subject: String
    var label: String
    var statuses: [Choice]
    var kinds: [Choice]
    var sorts: [Choice]
    var orders: [Choice]
    var rows: [SessionListRow]
    var matching: Int
    var matchingNoun: String
    var violationsAsOf: String?
    var firstURL: String?
    var nextURL: String?
}

struct SessionListRow {
    var id: String
    var shortID: String
    var label: String?
    var runOf: String?
    var runOfShort: String?
    var status: String
    var started: String
    var startedShown: String
    var duration: String
    var words: Int
    var subject: String?
    var subjectShort: String?
    var consent: String
    var violations: String
    var hasViolations: Bool
    var runs: Int

    init(_ summary: SessionSummary, violations: Int?, runs: Int) {
        id = Hex.uuid(summary.session)
        shortID = String(id.prefix(8))
        label = summary.runLabel
        runOf = summary.runOf.map(Hex.uuid)
        runOfShort = runOf.map { String($0.prefix(8)) }
        status = summary.status.rawValue
        started = summary.startedAt.map(RFC3339.string) ?? ""
        startedShown = summary.startedAt.map { String(RFC3339.string($0).prefix(19)).replacingOccurrences(of: "T", with: " ") } ?? "—"
        duration = summary.durationMilliseconds.map(ConsoleViews.clock) ?? "—"
        words = summary.words
        subject = summary.subject?.description
        subjectShort = subject.map { String($0.prefix(12)) + "…" }
        let granted = summary.consent.filter(\.value).keys.sorted()
        consent = granted.isEmpty ? (summary.consent.isEmpty ? "none" : "revoked") : granted.joined(separator: ", ")
        self.violations = violations.map(String.init) ?? "—"
        hasViolations = (violations ?? 0) > 0
        self.runs = runs
    }
}

struct Download {
    var name: String
    var url: String
}

struct SessionPage {
    var actor: String
    var sessionsPage: Bool
    var id: String
    var shortID: String
    var notice: String?
    var status: String
    var subject: String?
    var locale: String
    var started: String
    var ended: String
    var duration: String
    var words: Int
    var violations: String
    var violationsClass: String
    var runOf: String?
    var label: String?
    var downloads: [Download]
    var timeline: String
    var legend: String
    var audioURL: String?
    var transcript: String
    var findings: String
    var hasRuns: Bool
    var runs: [RunRow]
    var comparison: ComparisonView?
}

struct RunRow {
    var id: String
    var shortID: String
    var label: String
    var started: String
    var wer: String
    var errors: String
    var failed: Bool

    init(_ run: SessionSummary, comparison: TranscriptComparison) {
        id = Hex.uuid(run.session)
        shortID = String(id.prefix(8))
        label = run.runLabel ?? ""
        started = run.startedAt.map(RFC3339.string) ?? "—"
        wer = ConsoleViews.percent(comparison.wordErrorRate)
        errors = "\(comparison.alignment.substitutions) / \(comparison.alignment.deletions) / \(comparison.alignment.insertions)"
        failed = !comparison.passed
    }
}

/// A run against its source, segment by segment, word by word.
struct ComparisonView {
    struct Word {
        var kind: String
        var reference: String
        var hypothesis: String
    }

    struct Segment {
        var segment: String
        var words: [Word]
        var wer: String
    }

    var source: String
    var wer: String
    var errors: String
    var segments: [Segment]

    init(_ comparison: TranscriptComparison) {
        source = Hex.uuid(comparison.source)
        wer = ConsoleViews.percent(comparison.wordErrorRate)
        errors = "\(comparison.alignment.substitutions) substituted, \(comparison.alignment.deletions) missing, \(comparison.alignment.insertions) added"
        segments = comparison.segments.map { segment in
            Segment(segment: segment.segment,
                    words: segment.steps.map { Word(kind: $0.kind.rawValue, reference: $0.reference ?? "", hypothesis: $0.hypothesis ?? "") },
                    wer: ConsoleViews.percent(segment.wordErrorRate))
        }
    }
}

struct SubjectPage {
    var actor: String
    var hash: String
    var short: String
    var consent: [ConsentLine]
    var sessions: [SubjectSessionLine]
    var holds: [HoldLine]
}

struct ConsentLine {
    var occurredAt: String
    var type: String
    var change: String
    var changeClass: String
    var method: String
    var session: String
    var sessionShort: String
    var position: UInt64
    var proofURL: String

    init(_ entry: ConsentTrail.Entry) {
        occurredAt = RFC3339.string(entry.occurredAt)
        type = entry.consentType
        change = entry.granted ? "granted" : "revoked"
        changeClass = entry.granted ? "good" : "bad"
        method = entry.method + (entry.policyVersion.map { ", policy \($0)" } ?? "")
        session = Hex.uuid(entry.session)
        sessionShort = String(session.prefix(8))
        position = entry.position
        proofURL = "/v1/records/\(entry.position)/proof"
    }
}

struct SubjectSessionLine {
    var id: String
    var status: String
    var started: String
}

struct HoldLine {
    var description: String
}

struct ErasePage {
    var actor: String
    var hash: String
    var short: String
    var sessions: [DoomedSession]
    var count: Int
    var confirmation: String
    var refusal: String?
    var done: String?
}

struct DoomedSession {
    var id: String
    var status: String
    var started: String
    var words: Int
    var audio: String

    init(_ summary: SessionSummary) {
        id = Hex.uuid(summary.session)
        status = summary.status.rawValue
        started = summary.startedAt.map(RFC3339.string) ?? "—"
        words = summary.words
        audio = ConsoleViews.clock(Int64(summary.audioMilliseconds))
    }
}

struct IntegrityPage {
    var actor: String
    var integrityPage: Bool
    var verification: VerificationLine?
    var earlier: [VerificationLine]
    var hasEarlier: Bool
    var audit: AuditLine?
    var size: UInt64
    var root: String
    var handedOut: Bool
    var checkpoints: [CheckpointLine]
}

struct VerificationLine {
    var outcome: String
    var outcomeWord: String
    var outcomeClass: String
    var ranAt: String
    var actor: String
    var took: String
    var records: UInt64
    var erased: UInt64
    var size: UInt64
    var root: String
    var position: UInt64

    init(_ entry: IntegrityEvidence.Entry<IntegrityVerified>) {
        let verified = entry.payload
        outcome = verified.passed ? "Passed: every record's leaf hash and authentication tag checked, and the tree rebuilt from them."
            : "FAILED: \(verified.problemCount) problems; the first: \(verified.firstProblem ?? "—")"
        outcomeWord = verified.passed ? "passed" : "failed"
        outcomeClass = verified.passed ? "good" : "bad"
        ranAt = RFC3339.string(entry.occurredAt)
        actor = verified.actor
        took = String(format: "%.1f s", Double(verified.tookMilliseconds) / 1000)
        records = verified.recordsChecked
        erased = verified.erasedRecords
        size = verified.treeSize
        root = Hex.string(verified.rootHash)
        position = entry.position
    }
}

struct CheckpointLine {
    var at: String
    var actor: String
    var size: UInt64
    var root: String
    var witnesses: String

    init(_ entry: IntegrityEvidence.Entry<CheckpointIssued>) {
        at = RFC3339.string(entry.occurredAt)
        actor = entry.payload.actor
        size = entry.payload.treeSize
        root = Hex.string(entry.payload.rootHash)
        witnesses = entry.payload.witnesses.isEmpty ? "none" : entry.payload.witnesses.joined(separator: ", ")
    }
}

struct AuditLine {
    var violations: Int
    var sessions: Int
    var ranAt: String
}

struct LivePage {
    var actor: String
    var livePage: Bool
    var after: String
    var types: String
}
