import Foundation

/// Two versions of a system under test against each other, over every source session that has a run
/// of both (their runs' labels, `replay --drive --label`): pooled word error rates, the difference with
/// a bootstrap confidence interval, matched-pairs tests, a verdict, breakdowns and commit latencies.
/// Every statistic is defined in docs/REPLAY.md ("Is the new version worse?").
public struct LabelComparison: Sendable {
    /// How sure, how many draws, and the margin a CI gate allows.
    public struct Options: Sendable, Equatable {
        /// The confidence of the interval and of the verdict (0.95).
        public var confidence: Double
        /// How much worse (in word error rate, 0.01 = one point) the candidate may be before the gate fails.
        public var maxWorse: Double
        /// Bootstrap draws.
        public var resamples: Int
        /// The bootstrap's seed: the same numbers and seed give the same interval.
        public var seed: UInt64

        public init(confidence: Double = 0.95, maxWorse: Double = 0, resamples: Int = 10_000, seed: UInt64 = 1) {
            self.confidence = confidence
            self.maxWorse = maxWorse
            self.resamples = resamples
            self.seed = seed
        }

        /// Refuses options no comparison can use, naming the option as `name` spells it.
        /// - Throws: ``LabelComparisonError/Code/invalidRequest``.
        public func validate(naming name: (String) -> String = { "--" + $0 }) throws {
            // Word error rates have no upper bound (insertions), so neither has their difference.
            guard maxWorse.isFinite else {
                throw LabelComparisonError(.invalidRequest, "\(name("max-worse")) \(maxWorse) is not a difference of word error rates, such as 0.01")
            }
            guard confidence > 0, confidence < 1 else {
                throw LabelComparisonError(.invalidRequest, "\(name("confidence")) \(confidence) is not between 0 and 1, such as 0.95")
            }
            guard (1...1_000_000).contains(resamples) else {
                throw LabelComparisonError(.invalidRequest, "\(name("resamples")) \(resamples) is not between 1 and 1000000")
            }
        }
    }

    /// What the interval says.
    public enum Verdict: String, Sendable {
        /// The whole interval is below zero: the candidate makes fewer errors.
        case better
        /// The whole interval is above zero.
        case worse
        /// The interval holds zero.
        case noSignificantDifference = "no_significant_difference"
        /// No verdict can be given: fewer sessions than ``LabelComparison/minimumSessions``, fewer resamples than
        /// ``LabelComparison/minimumResamples``, or a label against itself (``LabelComparison/inconclusiveBecause`` says which).
        case inconclusive
    }

    /// The fewest sessions a verdict is given on: the smallest number whose sign test can reach p < 0.05 two-sided
    /// (with n sessions all one way, p = 2 / 2ⁿ: 0.0625 for 5, 0.031 for 6). Below it the bootstrap draws from so few
    /// distinct sets that its interval is no evidence (from one session it is a single point).
    public static let minimumSessions = 6
    /// The fewest bootstrap draws a verdict is given on (Bisani and Ney use B ≥ 1,000): fewer give percentiles that
    /// move from seed to seed more than the differences they judge.
    public static let minimumResamples = 1_000

    /// One version over the sessions compared.
    public struct System: Sendable, Equatable {
        public var label: String
        /// Σ errors ÷ Σ reference words over every session compared.
        public var wordErrorRate: Double
        /// Substitutions, deletions and insertions over every session compared.
        public var errors: Int
        public var referenceWords: Int
        /// Commit latencies (a segment's audio end to the run's commit) over every segment of every run:
        /// nearest-rank percentiles; nil when no segment has one.
        public var commitLatencyP50: Int64?
        public var commitLatencyP95: Int64?
    }

    /// One source session and its two runs.
    public struct SessionPair: Sendable {
        public var source: UUID
        public var baseline: TranscriptComparison
        public var candidate: TranscriptComparison
        /// The source's `condition` label (a condition suite's member), if it has one.
        public var condition: String?
        public var referenceWords: Int { baseline.alignment.reference.count }
        public var baselineErrors: Int { baseline.alignment.errors }
        public var candidateErrors: Int { candidate.alignment.errors }

        public init(source: UUID, baseline: TranscriptComparison, candidate: TranscriptComparison, condition: String? = nil) {
            self.source = source
            self.baseline = baseline
            self.candidate = candidate
            self.condition = condition
        }
    }

    /// Source segments of one kind (a length range, a speaker, a condition), both versions' errors on them.
    public struct SegmentGroup: Sendable, Equatable {
        /// The group: `1-4`, `5-9`, `10-19`, `20+` reference words, a speaker's name (`unnamed` for
        /// segments whose commit names none), or a condition (`none` for sources not derived under one).
        public var name: String
        public var segments: Int
        public var referenceWords: Int
        public var baselineErrors: Int
        public var candidateErrors: Int
    }

    public let options: Options
    public let baseline: System
    public let candidate: System
    /// Per source session, in the order of their ids.
    public let sessions: [SessionPair]
    /// Every session the comparison read: each pair's source and its two runs (the access log's record).
    public var sessionsRead: [UUID] { sessions.flatMap { [$0.source, $0.baseline.run, $0.candidate.run] } }
    /// Candidate minus baseline word error rate.
    public let difference: Double
    /// The bootstrap interval of `difference` at `options.confidence`.
    public let interval: BootstrapInterval
    /// Sessions where the candidate made fewer, and more, errors than the baseline.
    public let sessionsBetter: Int
    public let sessionsWorse: Int
    /// The sign test over those sessions.
    public let signTestP: Double
    /// Wilcoxon's signed-rank test over the sessions' error differences.
    public let signedRank: PairedTests.SignedRank
    /// NIST's MAPSSWE over segments of every session.
    public let matchedPairs: MatchedPairsTest
    public let verdict: Verdict
    /// Why the verdict is ``Verdict/inconclusive``; nil when there is one.
    public let inconclusiveBecause: String?
    /// Source segments by length, by speaker (by name), and by their session's condition (by name).
    public let byLength: [SegmentGroup]
    public let bySpeaker: [SegmentGroup]
    public let byCondition: [SegmentGroup]

    /// Whether the CI gate passes: it fails when, at the confidence asked, the candidate is worse by more
    /// than `maxWorse` (the interval's low end is above it). An inconclusive comparison does not fail it: it has no
    /// evidence that the candidate is worse (its summary says so).
    public var passed: Bool { verdict == .inconclusive || interval.low <= options.maxWorse }

    /// The comparison of `pairs` (at least one): `baselineLabel`'s runs against `candidateLabel`'s.
    public init(baselineLabel: String, candidateLabel: String, pairs: [SessionPair], options: Options = Options()) {
        self.options = options
        sessions = pairs.sorted { $0.source.uuidString < $1.source.uuidString }
        baseline = Self.system(baselineLabel, sessions.map(\.baseline))
        candidate = Self.system(candidateLabel, sessions.map(\.candidate))
        difference = candidate.wordErrorRate - baseline.wordErrorRate
        let counts = sessions.map { (baseline: $0.baselineErrors, candidate: $0.candidateErrors, words: $0.referenceWords) }
        interval = BootstrapInterval(sessions: counts, confidence: options.confidence, resamples: options.resamples, seed: options.seed)
            ?? BootstrapInterval(low: 0, high: 0)
        sessionsBetter = counts.count { $0.candidate < $0.baseline }
        sessionsWorse = counts.count { $0.candidate > $0.baseline }
        signTestP = PairedTests.signTest(better: sessionsBetter, worse: sessionsWorse)
        signedRank = PairedTests.wilcoxonSignedRank(counts.map { Double($0.candidate - $0.baseline) })
        matchedPairs = MatchedPairsTest(sessions: sessions.map { ($0.baseline.alignment, $0.candidate.alignment) })
        if baselineLabel == candidateLabel {
            inconclusiveBecause = "the baseline and the candidate are the same label, \"\(baselineLabel)\": compare two different labels"
        } else if sessions.count < Self.minimumSessions {
            inconclusiveBecause = "\(sessions.count) session\(sessions.count == 1 ? "" : "s") compared; a verdict needs at least \(Self.minimumSessions)"
        } else if options.resamples < Self.minimumResamples {
            inconclusiveBecause = "\(options.resamples) resample\(options.resamples == 1 ? "" : "s"); a verdict needs at least \(Self.minimumResamples)"
        } else {
            inconclusiveBecause = nil
        }
        verdict = inconclusiveBecause != nil ? .inconclusive : interval.low > 0 ? .worse : interval.high < 0 ? .better : .noSignificantDifference
        byLength = Self.groups(sessions, order: Self.lengthRanges.map(\.name)) { _, segment in
            Self.lengthRanges.first { $0.words.contains(segment.reference.count) }?.name
        }
        bySpeaker = Self.groups(sessions, order: nil) { $1.speaker ?? "unnamed" }
        byCondition = Self.groups(sessions, order: nil) { pair, _ in pair.condition ?? "none" }
    }

    static func system(_ label: String, _ runs: [TranscriptComparison]) -> System {
        let errors = runs.reduce(0) { $0 + $1.alignment.errors }
        let words = runs.reduce(0) { $0 + $1.alignment.reference.count }
        let latencies = runs.flatMap { $0.segments.compactMap(\.commitLatencyMilliseconds) }.sorted()
        return System(label: label, wordErrorRate: words == 0 ? Double(errors) : Double(errors) / Double(words), errors: errors,
                      referenceWords: words, commitLatencyP50: nearestRank(latencies, 0.50), commitLatencyP95: nearestRank(latencies, 0.95))
    }

    /// The smallest value with at least `fraction` of them at or below it.
    static func nearestRank(_ sorted: [Int64], _ fraction: Double) -> Int64? {
        guard !sorted.isEmpty else { return nil }
        return sorted[max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1)]
    }

    static let lengthRanges: [(name: String, words: ClosedRange<Int>)] = [("1-4", 1...4), ("5-9", 5...9), ("10-19", 10...19), ("20+", 20...Int.max)]

    /// Every source segment's errors in both runs, in the group `group` names (none: left out), groups in
    /// `order` or by name.
    private static func groups(_ sessions: [SessionPair], order: [String]?,
                               _ group: (SessionPair, TranscriptComparison.SegmentResult) -> String?) -> [SegmentGroup] {
        var groups: [String: SegmentGroup] = [:]
        for pair in sessions {
            for (one, two) in zip(pair.baseline.segments, pair.candidate.segments) {
                guard let name = group(pair, one) else { continue }
                groups[name, default: SegmentGroup(name: name, segments: 0, referenceWords: 0, baselineErrors: 0, candidateErrors: 0)]
                    .add(one, two)
            }
        }
        let names = order ?? groups.keys.sorted()
        return names.compactMap { groups[$0] }
    }
}

extension LabelComparison.SegmentGroup {
    mutating func add(_ baseline: TranscriptComparison.SegmentResult, _ candidate: TranscriptComparison.SegmentResult) {
        segments += 1
        referenceWords += baseline.reference.count
        baselineErrors += baseline.errors
        candidateErrors += candidate.errors
    }
}
