import Foundation
import Output
import Replay

/// `compare --baseline --candidate --format json`: the whole comparison as one object (docs/REPLAY.md).
struct LabelComparisonDocument: OutputRow {
    static let columns = ["baseline", "candidate", "difference", "ci_low", "ci_high", "confidence", "p_sign", "p_wilcoxon",
                          "p_mapsswe", "verdict", "max_worse", "passed", "sessions_better", "sessions_worse", "mapsswe_segments", "mapsswe_statistic",
                          "resamples", "seed", "by_segment_length", "by_speaker", "sessions"]

    var comparison: LabelComparison

    func write(to fields: inout Fields) {
        let c = comparison
        fields.field("baseline", object: { Self.system(c.baseline, to: &$0) })
        fields.field("candidate", object: { Self.system(c.candidate, to: &$0) })
        fields.field("difference", rounded(c.difference))
        fields.field("ci_low", rounded(c.interval.low))
        fields.field("ci_high", rounded(c.interval.high))
        fields.field("confidence", c.options.confidence)
        fields.field("p_sign", rounded(c.signTestP))
        fields.field("p_wilcoxon", rounded(c.signedRank.pValue))
        fields.field("p_mapsswe", rounded(c.matchedPairs.pValue))
        fields.field("verdict", c.verdict.rawValue)
        fields.field("max_worse", c.options.maxWorse)
        fields.field("passed", c.passed)
        fields.field("sessions_better", c.sessionsBetter)
        fields.field("sessions_worse", c.sessionsWorse)
        fields.field("mapsswe_segments", c.matchedPairs.segments.count)
        fields.field("mapsswe_statistic", rounded(c.matchedPairs.statistic))
        fields.field("resamples", c.options.resamples)
        fields.field("seed", UInt64(c.options.seed))
        fields.field("by_segment_length", rows: c.byLength.map(SegmentGroupRow.init))
        fields.field("by_speaker", rows: c.bySpeaker.map(SegmentGroupRow.init))
        fields.field("sessions", rows: c.sessions.map(SessionPairRow.init))
    }

    private static func system(_ system: LabelComparison.System, to fields: inout Fields) {
        fields.field("label", system.label)
        fields.field("word_error_rate", rounded(system.wordErrorRate))
        fields.field("errors", system.errors)
        fields.field("reference_words", system.referenceWords)
        fields.field("commit_latency_p50_ms", system.commitLatencyP50)
        fields.field("commit_latency_p95_ms", system.commitLatencyP95)
    }
}

/// One source session of a label comparison: `compare --baseline --candidate`'s table and CSV rows.
struct SessionPairRow: OutputRow {
    static let columns = ["source", "baseline_run", "candidate_run", "reference_words", "baseline_errors", "candidate_errors",
                          "baseline_wer", "candidate_wer", "difference"]

    var pair: LabelComparison.SessionPair

    func write(to fields: inout Fields) {
        let words = pair.referenceWords
        fields.field("source", id: pair.source)
        fields.field("baseline_run", id: pair.baseline.run)
        fields.field("candidate_run", id: pair.candidate.run)
        fields.field("reference_words", words)
        fields.field("baseline_errors", pair.baselineErrors)
        fields.field("candidate_errors", pair.candidateErrors)
        fields.field("baseline_wer", rounded(pair.baseline.wordErrorRate))
        fields.field("candidate_wer", rounded(pair.candidate.wordErrorRate))
        fields.field("difference", rounded(pair.candidate.wordErrorRate - pair.baseline.wordErrorRate))
    }
}

/// Source segments of one length range or one speaker in a label comparison.
struct SegmentGroupRow: OutputRow {
    static let columns = ["group", "segments", "reference_words", "baseline_errors", "candidate_errors", "baseline_wer", "candidate_wer"]

    var group: LabelComparison.SegmentGroup

    func write(to fields: inout Fields) {
        let words = Double(max(group.referenceWords, 1))
        fields.field("group", group.name)
        fields.field("segments", group.segments)
        fields.field("reference_words", group.referenceWords)
        fields.field("baseline_errors", group.baselineErrors)
        fields.field("candidate_errors", group.candidateErrors)
        fields.field("baseline_wer", rounded(Double(group.baselineErrors) / words))
        fields.field("candidate_wer", rounded(Double(group.candidateErrors) / words))
    }
}

/// Rates and p-values to 6 decimals, so that outputs do not carry binary noise.
private func rounded(_ value: Double) -> Double { SegmentComparisonRow.rounded(value) }

extension LabelComparison {
    /// The lines people read after the table: the rates, the interval, the tests, the verdict, the gate.
    var summary: String {
        func rate(_ value: Double) -> String { String(format: "%.4f", value) }
        func p(_ value: Double) -> String { String(format: "%.4g", value) }
        let percent = String(format: "%g", options.confidence * 100)
        var lines = [
            "baseline  \(baseline.label): word error rate \(rate(baseline.wordErrorRate)) (\(baseline.errors) errors in \(baseline.referenceWords) words)"
                + latency(baseline),
            "candidate \(candidate.label): word error rate \(rate(candidate.wordErrorRate)) (\(candidate.errors) errors in \(candidate.referenceWords) words)"
                + latency(candidate),
            "difference \(rate(difference)), \(percent)% interval [\(rate(interval.low)), \(rate(interval.high))] "
                + "(bootstrap over \(sessions.count) sessions, \(options.resamples) draws, seed \(options.seed))",
            "sign test p \(p(signTestP)) (\(sessionsBetter) sessions better, \(sessionsWorse) worse); Wilcoxon p \(p(signedRank.pValue)); "
                + "MAPSSWE p \(p(matchedPairs.pValue)) over \(matchedPairs.segments.count) segments",
            "verdict: \(verdict.rawValue.replacingOccurrences(of: "_", with: " "))",
        ]
        for (title, groups, unit) in [("by segment length", byLength, " words"), ("by speaker", bySpeaker, "")] where !groups.isEmpty {
            lines.append("\(title): " + groups.map {
                let words = Double(max($0.referenceWords, 1))
                return "\($0.name)\(unit) \(rate(Double($0.baselineErrors) / words)) → \(rate(Double($0.candidateErrors) / words))"
            }.joined(separator: "; "))
        }
        lines.append(passed ? "passed: not worse by more than \(options.maxWorse) at \(percent)%"
                            : gateFailure)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Why the gate failed, in one sentence.
    var gateFailure: String {
        "candidate \(candidate.label) is worse than baseline \(baseline.label) by more than \(options.maxWorse): "
            + String(format: "the %g%% interval of the difference is [%.4f, %.4f]", options.confidence * 100, interval.low, interval.high)
    }

    private func latency(_ system: System) -> String {
        guard let p50 = system.commitLatencyP50, let p95 = system.commitLatencyP95 else { return "" }
        return "; commit latency p50 \(p50) ms, p95 \(p95) ms"
    }
}
