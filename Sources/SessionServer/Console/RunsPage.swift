import Foundation
import HexCoding
import Hummingbird
import Output
import Replay
import Reports

/// The console's Runs page: condition suites, each run label's word error rate in the order the labels
/// ran (a table and a chart), and two labels compared with significance, per condition and per session,
/// each session's word diffs one click away (the run's own page).
struct RunsPage {
    struct Suite {
        var name: String
        /// Recorded sessions (derived ones included), not their runs.
        var sessions: Int
        var runs: Int
        var conditions: String
        var url: String
    }

    struct Trend {
        var label: String
        var sessions: Int
        var wer: String
        var errors: Int
        var words: Int
        var latencyP50: String
        var latencyP95: String
        var first: String
    }

    struct Version {
        var label: String
        var wer: String
        var errors: Int
        var words: Int
        var latencyP50: String
        var latencyP95: String
    }

    struct Group {
        var name: String
        var segments: Int
        var words: Int
        var baseline: String
        var candidate: String
        var worse: Bool
        var better: Bool
    }

    struct Breakdown {
        var title: String
        var groups: [Group]
    }

    struct Pair {
        var source: String
        var shortSource: String
        var condition: String
        var words: Int
        var baselineRun: String
        var baseline: String
        var candidateRun: String
        var candidate: String
        var worse: Bool
        var better: Bool
    }

    struct Comparison {
        var baseline: Version
        var candidate: Version
        var difference: String
        var interval: String
        var confidence: String
        var pSign: String
        var pWilcoxon: String
        var pMapsswe: String
        var verdict: String
        var verdictClass: String
        var sessionsBetter: Int
        var sessionsWorse: Int
        var breakdowns: [Breakdown]
        var pairs: [Pair]
        var jsonURL: String
    }

    var actor: String
    var runsPage = true
    var suites: [Suite]
    var hasSuites: Bool
    var trend: [Trend]
    var hasTrend: Bool
    var chart: String
    /// What a break in the chart's line means, when it has one.
    var chartNote: String?
    var labels: [Choice]
    var candidates: [Choice]
    var comparison: Comparison?
    var notice: String?
}

extension RunsPage.Comparison {
    init(_ c: LabelComparison) {
        func version(_ system: LabelComparison.System) -> RunsPage.Version {
            RunsPage.Version(label: system.label, wer: ConsoleViews.percent(system.wordErrorRate), errors: system.errors,
                             words: system.referenceWords, latencyP50: system.commitLatencyP50.map { "\($0) ms" } ?? "—",
                             latencyP95: system.commitLatencyP95.map { "\($0) ms" } ?? "—")
        }
        func rate(_ errors: Int, _ words: Int) -> Double { Double(errors) / Double(max(1, words)) }
        func groups(_ title: String, _ groups: [LabelComparison.SegmentGroup]) -> RunsPage.Breakdown {
            RunsPage.Breakdown(title: title, groups: groups.map { group in
                RunsPage.Group(name: group.name, segments: group.segments, words: group.referenceWords,
                               baseline: ConsoleViews.percent(rate(group.baselineErrors, group.referenceWords)),
                               candidate: ConsoleViews.percent(rate(group.candidateErrors, group.referenceWords)),
                               worse: group.candidateErrors > group.baselineErrors, better: group.candidateErrors < group.baselineErrors)
            })
        }
        baseline = version(c.baseline)
        candidate = version(c.candidate)
        difference = String(format: "%+.1f points", c.difference * 100)
        interval = String(format: "[%+.1f, %+.1f] points", c.interval.low * 100, c.interval.high * 100)
        confidence = String(format: "%g%%", c.options.confidence * 100)
        pSign = String(format: "%.4g", c.signTestP)
        pWilcoxon = String(format: "%.4g", c.signedRank.pValue)
        pMapsswe = String(format: "%.4g", c.matchedPairs.pValue)
        verdict = c.verdict.rawValue.replacingOccurrences(of: "_", with: " ") + (c.inconclusiveBecause.map { ": \($0)" } ?? "")
        verdictClass = c.verdict == .worse ? "bad" : c.verdict == .better ? "good" : ""
        sessionsBetter = c.sessionsBetter
        sessionsWorse = c.sessionsWorse
        breakdowns = [groups("By condition", c.byCondition), groups("By speaker", c.bySpeaker), groups("By segment length (words)", c.byLength)]
            .filter { !$0.groups.isEmpty }
        pairs = c.sessions.map { pair in
            let id = Hex.uuid(pair.source)
            return RunsPage.Pair(source: id, shortSource: String(id.prefix(8)), condition: pair.condition ?? "—", words: pair.referenceWords,
                                 baselineRun: Hex.uuid(pair.baseline.run), baseline: ConsoleViews.percent(pair.baseline.wordErrorRate),
                                 candidateRun: Hex.uuid(pair.candidate.run), candidate: ConsoleViews.percent(pair.candidate.wordErrorRate),
                                 worse: pair.candidateErrors > pair.baselineErrors, better: pair.candidateErrors < pair.baselineErrors)
        }
        let query = (try? URLEncodedFormEncoder().encode(["baseline": c.baseline.label, "candidate": c.candidate.label])) ?? ""
        jsonURL = "/v1/compare?" + query
    }
}
