import Foundation
import Output

/// `compare --baseline --candidate --format json` and `GET /v1/compare`: the whole comparison as one
/// object (docs/REPLAY.md).
public struct LabelComparisonDocument: OutputRow {
    public static let columns = ["baseline", "candidate", "difference", "ci_low", "ci_high", "confidence", "p_sign", "p_wilcoxon",
                          "p_mapsswe", "verdict", "inconclusive_because", "max_worse", "passed", "sessions_better", "sessions_worse", "mapsswe_segments", "mapsswe_statistic",
                          "resamples", "seed", "by_segment_length", "by_speaker", "by_condition", "sessions"]

    public var comparison: LabelComparison

    public init(comparison: LabelComparison) {
        self.comparison = comparison
    }

    public func write(to fields: inout Fields) {
        let c = comparison
        fields.field("baseline", object: { Self.system(c.baseline, to: &$0) })
        fields.field("candidate", object: { Self.system(c.candidate, to: &$0) })
        fields.field("difference", Rates.rounded(c.difference))
        fields.field("ci_low", Rates.rounded(c.interval.low))
        fields.field("ci_high", Rates.rounded(c.interval.high))
        fields.field("confidence", c.options.confidence)
        // Probabilities at a double's precision: 6.8e-9 is evidence, and rounding would print it as 0.
        fields.field("p_sign", c.signTestP)
        fields.field("p_wilcoxon", c.signedRank.pValue)
        fields.field("p_mapsswe", c.matchedPairs.pValue)
        fields.field("verdict", c.verdict.rawValue)
        fields.field("inconclusive_because", c.inconclusiveBecause)
        fields.field("max_worse", c.options.maxWorse)
        fields.field("passed", c.passed)
        fields.field("sessions_better", c.sessionsBetter)
        fields.field("sessions_worse", c.sessionsWorse)
        fields.field("mapsswe_segments", c.matchedPairs.segments.count)
        fields.field("mapsswe_statistic", Rates.rounded(c.matchedPairs.statistic))
        fields.field("resamples", c.options.resamples)
        fields.field("seed", UInt64(c.options.seed))
        fields.field("by_segment_length", rows: c.byLength.map(SegmentGroupRow.init))
        fields.field("by_speaker", rows: c.bySpeaker.map(SegmentGroupRow.init))
        fields.field("by_condition", rows: c.byCondition.map(SegmentGroupRow.init))
        fields.field("sessions", rows: c.sessions.map(SessionPairRow.init))
    }

    private static func system(_ system: LabelComparison.System, to fields: inout Fields) {
        fields.field("label", system.label)
        fields.field("word_error_rate", Rates.rounded(system.wordErrorRate))
        fields.field("errors", system.errors)
        fields.field("reference_words", system.referenceWords)
        fields.field("commit_latency_p50_ms", system.commitLatencyP50)
        fields.field("commit_latency_p95_ms", system.commitLatencyP95)
    }
}

/// One source session of a label comparison: `compare --baseline --candidate`'s table and CSV rows.
public struct SessionPairRow: OutputRow {
    public static let columns = ["source", "condition", "baseline_run", "candidate_run", "reference_words", "baseline_errors", "candidate_errors",
                          "baseline_wer", "candidate_wer", "difference"]

    public var pair: LabelComparison.SessionPair

    public init(pair: LabelComparison.SessionPair) {
        self.pair = pair
    }

    public func write(to fields: inout Fields) {
        let words = pair.referenceWords
        fields.field("source", id: pair.source)
        fields.field("condition", pair.condition)
        fields.field("baseline_run", id: pair.baseline.run)
        fields.field("candidate_run", id: pair.candidate.run)
        fields.field("reference_words", words)
        fields.field("baseline_errors", pair.baselineErrors)
        fields.field("candidate_errors", pair.candidateErrors)
        fields.field("baseline_wer", Rates.rounded(pair.baseline.wordErrorRate))
        fields.field("candidate_wer", Rates.rounded(pair.candidate.wordErrorRate))
        fields.field("difference", Rates.rounded(pair.candidate.wordErrorRate - pair.baseline.wordErrorRate))
    }
}

/// Source segments of one length range, one speaker or one condition in a label comparison.
public struct SegmentGroupRow: OutputRow {
    public static let columns = ["group", "segments", "reference_words", "baseline_errors", "candidate_errors", "baseline_wer", "candidate_wer"]

    public var group: LabelComparison.SegmentGroup

    public init(group: LabelComparison.SegmentGroup) {
        self.group = group
    }

    public func write(to fields: inout Fields) {
        let words = Double(max(group.referenceWords, 1))
        fields.field("group", group.name)
        fields.field("segments", group.segments)
        fields.field("reference_words", group.referenceWords)
        fields.field("baseline_errors", group.baselineErrors)
        fields.field("candidate_errors", group.candidateErrors)
        fields.field("baseline_wer", Rates.rounded(Double(group.baselineErrors) / words))
        fields.field("candidate_wer", Rates.rounded(Double(group.candidateErrors) / words))
    }
}

/// One label of `sessionstore runs` and `GET /v1/runs` (docs/REPLAY.md).
public struct LabelTrendRow: OutputRow {
    public static let columns = ["label", "sessions", "word_error_rate", "errors", "reference_words", "commit_latency_p50_ms",
                          "commit_latency_p95_ms", "first_drive_at", "last_drive_at"]

    public var entry: LabelTrend.Entry

    public init(entry: LabelTrend.Entry) {
        self.entry = entry
    }

    public func write(to fields: inout Fields) {
        fields.field("label", entry.system.label)
        fields.field("sessions", entry.sessions)
        fields.field("word_error_rate", Rates.rounded(entry.system.wordErrorRate))
        fields.field("errors", entry.system.errors)
        fields.field("reference_words", entry.system.referenceWords)
        fields.field("commit_latency_p50_ms", entry.system.commitLatencyP50)
        fields.field("commit_latency_p95_ms", entry.system.commitLatencyP95)
        fields.field("first_drive_at", time: entry.firstDriveAt)
        fields.field("last_drive_at", time: entry.lastDriveAt)
    }
}

/// Rates, p-values and seconds as the outputs write them.
public enum Rates {
    /// `value` to 6 decimals, so that outputs do not carry binary noise (1/3 → 0.333333).
    public static func rounded(_ value: Double) -> Double { (value * 1_000_000).rounded() / 1_000_000 }
}
