import Foundation
import Replay

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
            "verdict: \(verdict.rawValue.replacingOccurrences(of: "_", with: " "))" + (inconclusiveBecause.map { " (\($0))" } ?? ""),
        ]
        for (title, groups, unit) in [("by segment length", byLength, " words"), ("by speaker", bySpeaker, ""),
                                     ("by condition", byCondition, "")] where !groups.isEmpty {
            lines.append("\(title): " + groups.map {
                let words = Double(max($0.referenceWords, 1))
                return "\($0.name)\(unit) \(rate(Double($0.baselineErrors) / words)) → \(rate(Double($0.candidateErrors) / words))"
            }.joined(separator: "; "))
        }
        if verdict == .inconclusive {
            lines.append("passed: no evidence that it is worse, nor that it is not")
        } else {
            lines.append(passed ? "passed: not worse by more than \(options.maxWorse) at \(percent)%" : gateFailure)
        }
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
