import Foundation
import Output
import OutputRows
import Replay

/// A source segment against a run: `compare`'s table and CSV rows (docs/REPLAY.md).
struct SegmentComparisonRow: OutputRow {
    static let columns = ["source", "run", "segment", "run_segment", "reference_words", "substitutions", "deletions",
                          "insertions", "word_error_rate", "commit_drift_ms", "first_partial_latency_ms", "commit_latency_ms",
                          "reference", "hypothesis", "alignment"]

    var comparison: TranscriptComparison
    var segment: TranscriptComparison.SegmentResult
    /// The run's id: nil when it was not stored (`--no-store`).
    var run: UUID?

    func write(to fields: inout Fields) {
        fields.field("source", id: comparison.source)
        fields.field("run", id: run)
        fields.field("segment", segment.segment)
        fields.field("run_segment", segment.runSegment)
        fields.field("reference_words", segment.reference.count)
        fields.field("substitutions", segment.substitutions)
        fields.field("deletions", segment.deletions)
        fields.field("insertions", segment.insertions)
        fields.field("word_error_rate", Rates.rounded(segment.wordErrorRate))
        fields.field("commit_drift_ms", segment.commitDriftMilliseconds)
        fields.field("first_partial_latency_ms", segment.firstPartialLatencyMilliseconds)
        fields.field("commit_latency_ms", segment.commitLatencyMilliseconds)
        if fields.isFlat {
            fields.field("reference", segment.reference.joined(separator: " "))
            fields.field("hypothesis", segment.hypothesis.joined(separator: " "))
            fields.field("alignment", Self.marked(segment.steps))
        } else {
            fields.field("reference", strings: segment.reference)
            fields.field("hypothesis", strings: segment.hypothesis)
            fields.field("alignment", rows: segment.steps.map(WordStepRow.init))
        }
    }

    /// The alignment as one line people read: `=word`, `~ref>hyp`, `-ref`, `+hyp`.
    static func marked(_ steps: [TranscriptComparison.WordStep]) -> String {
        steps.map { step in
            switch step.kind {
            case .equal: "=" + (step.reference ?? "")
            case .substitute: "~" + (step.reference ?? "") + ">" + (step.hypothesis ?? "")
            case .delete: "-" + (step.reference ?? "")
            case .insert: "+" + (step.hypothesis ?? "")
            }
        }.joined(separator: " ")
    }
}

/// One word of an alignment in JSON: `{"op": "substitute", "reference": "for", "hypothesis": "four"}`.
struct WordStepRow: OutputRow {
    static let columns = ["op", "reference", "hypothesis"]

    var step: TranscriptComparison.WordStep

    func write(to fields: inout Fields) {
        fields.field("op", step.kind.rawValue)
        fields.field("reference", step.reference)
        fields.field("hypothesis", step.hypothesis)
    }
}

/// A whole comparison as one JSON object (`compare --format json`, and each element of a suite's).
struct ComparisonDocument: OutputRow {
    static let columns = ["source", "run", "label", "outcome", "passed", "word_error_rate", "substitutions", "deletions",
                          "insertions", "hits", "reference_words", "hypothesis_words", "max_wer", "max_commit_latency_ms",
                          "failures", "phrases", "segments"]

    var comparison: TranscriptComparison
    var label: String?
    /// The run's id: nil when it was not stored (`--no-store`).
    var run: UUID?

    func write(to fields: inout Fields) {
        let c = comparison, alignment = c.alignment
        fields.field("source", id: c.source)
        fields.field("run", id: run)
        fields.field("label", label)
        fields.field("outcome", c.passed ? "passed" : "failed")
        fields.field("passed", c.passed)
        fields.field("word_error_rate", Rates.rounded(c.wordErrorRate))
        fields.field("substitutions", alignment.substitutions)
        fields.field("deletions", alignment.deletions)
        fields.field("insertions", alignment.insertions)
        fields.field("hits", alignment.hits)
        fields.field("reference_words", alignment.reference.count)
        fields.field("hypothesis_words", alignment.hypothesis.count)
        fields.field("max_wer", c.thresholds.maxWordErrorRate)
        fields.field("max_commit_latency_ms", c.thresholds.maxCommitLatencyMilliseconds)
        fields.field("failures", strings: c.failures)
        fields.field("phrases", rows: c.phrases.map(PhraseRow.init))
        fields.field("segments", rows: c.segments.map { SegmentComparisonRow(comparison: c, segment: $0, run: run) })
    }
}

/// A key phrase and whether the run's transcript holds it in order.
struct PhraseRow: OutputRow {
    static let columns = ["phrase", "found"]

    var phrase: TranscriptComparison.PhraseResult

    func write(to fields: inout Fields) {
        fields.field("phrase", phrase.phrase)
        fields.field("found", phrase.found)
    }
}

/// One session of a suite (`replay --all --drive … --expect`): how its drive and check went.
struct SuiteRow: OutputRow {
    static let columns = ["source", "run", "label", "outcome", "word_error_rate", "substitutions", "deletions", "insertions",
                          "reference_words", "worst_segment", "max_commit_latency_ms", "seconds", "message"]

    var result: DriveOutcome

    func write(to fields: inout Fields) {
        let comparison = result.comparison
        fields.field("source", id: result.source)
        fields.field("run", id: result.run)
        fields.field("label", result.label)
        fields.field("outcome", result.outcome.rawValue)
        fields.field("word_error_rate", comparison.map { Rates.rounded($0.wordErrorRate) })
        fields.field("substitutions", comparison?.alignment.substitutions)
        fields.field("deletions", comparison?.alignment.deletions)
        fields.field("insertions", comparison?.alignment.insertions)
        fields.field("reference_words", comparison?.alignment.reference.count)
        fields.field("worst_segment", comparison?.worstSegment.flatMap { $0.wordErrorRate > 0 ? $0.segment : nil })
        fields.field("max_commit_latency_ms", comparison?.segments.compactMap(\.commitLatencyMilliseconds).max())
        fields.field("seconds", Rates.rounded(result.seconds))
        fields.field("message", result.message)
    }
}
