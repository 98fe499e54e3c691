import Foundation
import SessionStoreTesting

/// What a system under test produced (a run) against what the source session holds: the word error
/// rate over the whole transcript with its counts, the alignment per source segment, key phrases, the
/// timing of commits and partials, and whether it passes the thresholds.
///
/// Both transcripts are normalised by ``TranscriptMatcher`` (NFKC, case folded, punctuation stripped,
/// whitespace collapsed) and aligned as a whole by ``WordAlignment``; each step is then given to the
/// source segment its reference word belongs to (an inserted word to the segment of the word before
/// it). A source segment's *run segment* is the run's segment holding the last word aligned to it; its
/// timing compares that segment's commit and first partial with the source segment's.
public struct TranscriptComparison: Sendable {
    /// What passing means.
    public struct Thresholds: Sendable, Equatable {
        /// The highest word error rate that passes.
        public var maxWordErrorRate: Double?
        /// The longest a segment's commit may come after its audio ends, in milliseconds.
        public var maxCommitLatencyMilliseconds: Int64?
        /// Phrases the run's transcript must hold, in this order.
        public var phrases: [String]

        /// The word error rate a check allows unless told otherwise.
        public static let defaultMaxWordErrorRate = 0.15

        /// Thresholds for a check; each left out is not checked.
        public init(maxWordErrorRate: Double? = defaultMaxWordErrorRate, maxCommitLatencyMilliseconds: Int64? = nil, phrases: [String] = []) {
            self.maxWordErrorRate = maxWordErrorRate
            self.maxCommitLatencyMilliseconds = maxCommitLatencyMilliseconds
            self.phrases = phrases
        }
    }

    /// One word of a segment's alignment.
    public struct WordStep: Sendable, Equatable {
        public var kind: WordAlignment.Step.Kind
        /// The reference word (nil for an insertion).
        public var reference: String?
        /// The run's word (nil for a deletion).
        public var hypothesis: String?
    }

    /// A source segment against the run.
    public struct SegmentResult: Sendable, Equatable {
        /// The source segment's id.
        public var segment: String
        /// Who said it in the source, when its commit names a speaker.
        public var speaker: String?
        /// The run's segment holding the last word aligned to it, if any word was.
        public var runSegment: String?
        /// The segment's normalised words, and the run's words aligned to them.
        public var reference: [String]
        public var hypothesis: [String]
        /// Word by word.
        public var steps: [WordStep]
        public var substitutions: Int
        public var deletions: Int
        public var insertions: Int
        /// (S + D + I) / N over the segment's words.
        public var wordErrorRate: Double {
            reference.isEmpty ? Double(errors) : Double(errors) / Double(reference.count)
        }
        /// S + D + I in this segment.
        public var errors: Int { substitutions + deletions + insertions }
        /// The run segment's commit time minus the source segment's, in milliseconds.
        public var commitDriftMilliseconds: Int64?
        /// From the segment's audio end to the run segment's first partial (negative: the partial came
        /// while the words were still being spoken), in milliseconds.
        public var firstPartialLatencyMilliseconds: Int64?
        /// From the segment's audio end to the run segment's commit, in milliseconds.
        public var commitLatencyMilliseconds: Int64?
    }

    /// A key phrase and where the run's transcript holds it.
    public struct PhraseResult: Sendable, Equatable {
        public var phrase: String
        /// Whether it was found after the phrase before it.
        public var found: Bool
    }

    /// The source session and the run.
    public let source: UUID
    public let run: UUID
    /// The whole alignment.
    public let alignment: WordAlignment
    /// Per source segment, in the order they start.
    public let segments: [SegmentResult]
    /// The key phrases, in order.
    public let phrases: [PhraseResult]
    /// What was checked.
    public let thresholds: Thresholds
    /// Why the check failed: one sentence per threshold missed; empty when it passed.
    public let failures: [String]

    /// Whether the run passed every threshold.
    public var passed: Bool { failures.isEmpty }
    /// (S + D + I) / N over the whole transcript.
    public var wordErrorRate: Double { alignment.wordErrorRate }

    /// The comparison of `run`'s transcript with `source`'s.
    public init(source: TranscriptTimeline, run: TranscriptTimeline, thresholds: Thresholds = Thresholds(),
                matcher: TranscriptMatcher = TranscriptMatcher()) {
        self.source = source.session
        self.run = run.session
        self.thresholds = thresholds
        let reference = Self.words(of: source, matcher), hypothesis = Self.words(of: run, matcher)
        alignment = WordAlignment(reference: reference.map(\.word), hypothesis: hypothesis.map(\.word))
        var results = source.segments.map {
            SegmentResult(segment: $0.id, speaker: $0.speaker, reference: matcher.words($0.text), hypothesis: [], steps: [],
                          substitutions: 0, deletions: 0, insertions: 0)
        }
        var lastAligned = [Int?](repeating: nil, count: results.count)  // the last run word aligned to each segment
        var current = 0  // the source segment of the latest reference word passed
        for step in alignment.steps {
            let length = max(step.reference.count, step.hypothesis.count)
            for offset in 0..<length {
                let referenceIndex = step.reference.isEmpty ? nil : step.reference.lowerBound + offset
                let hypothesisIndex = step.hypothesis.isEmpty ? nil : step.hypothesis.lowerBound + offset
                if let referenceIndex { current = reference[referenceIndex].segment }
                guard !results.isEmpty else { break }
                let word = WordStep(kind: step.kind, reference: referenceIndex.map { reference[$0].word },
                                    hypothesis: hypothesisIndex.map { hypothesis[$0].word })
                results[current].steps.append(word)
                if let hypothesisIndex {
                    results[current].hypothesis.append(hypothesis[hypothesisIndex].word)
                    lastAligned[current] = hypothesisIndex
                }
                switch step.kind {
                case .substitute: results[current].substitutions += 1
                case .delete: results[current].deletions += 1
                case .insert: results[current].insertions += 1
                case .equal: break
                }
            }
        }
        for index in results.indices {
            guard let word = lastAligned[index] else { continue }
            let sourceSegment = source.segments[index], runSegment = run.segments[hypothesis[word].segment]
            results[index].runSegment = runSegment.id
            guard run.commitTimesMeasured else { continue }
            results[index].commitDriftMilliseconds = runSegment.committedAt - sourceSegment.committedAt
            if let audioEnd = source.clockTime(ofRecordingMilliseconds: sourceSegment.endMilliseconds) {
                results[index].commitLatencyMilliseconds = runSegment.committedAt - audioEnd
                results[index].firstPartialLatencyMilliseconds = runSegment.firstPartialAt.map { $0 - audioEnd }
            }
        }
        segments = results
        let runText = run.segments.map(\.text).joined(separator: " ")
        phrases = Self.findPhrases(thresholds.phrases, in: runText, matcher)
        failures = Self.failures(alignment: alignment, segments: results, phrases: phrases, thresholds: thresholds)
    }

    /// The segment with the highest word error rate (the latest commit among equals); nil without segments.
    public var worstSegment: SegmentResult? {
        segments.max { ($0.wordErrorRate, $0.reference.count) < ($1.wordErrorRate, $1.reference.count) }
    }

    private static func words(of timeline: TranscriptTimeline, _ matcher: TranscriptMatcher) -> [(word: String, segment: Int)] {
        timeline.segments.enumerated().flatMap { index, segment in matcher.words(segment.text).map { ($0, index) } }
    }

    private static func findPhrases(_ phrases: [String], in text: String, _ matcher: TranscriptMatcher) -> [PhraseResult] {
        var results: [PhraseResult] = []
        for (index, phrase) in phrases.enumerated() {
            let found = matcher.phrasesInOrder(Array(phrases[...index]), in: text).passed
            results.append(PhraseResult(phrase: phrase, found: found && (results.last?.found ?? true)))
        }
        return results
    }

    private static func failures(alignment: WordAlignment, segments: [SegmentResult], phrases: [PhraseResult],
                                 thresholds: Thresholds) -> [String] {
        var failures: [String] = []
        if let maximum = thresholds.maxWordErrorRate, alignment.wordErrorRate > maximum {
            var sentence = "word error rate \(format(alignment.wordErrorRate)) is above \(format(maximum))"
                + " (\(alignment.substitutions) substituted, \(alignment.deletions) deleted, \(alignment.insertions) inserted"
                + " of \(alignment.reference.count) words)"
            if let worst = segments.max(by: { $0.wordErrorRate < $1.wordErrorRate }), worst.wordErrorRate > 0 {
                sentence += "; worst segment \(worst.segment) at \(format(worst.wordErrorRate)): expected \"\(worst.reference.joined(separator: " "))\", got \"\(worst.hypothesis.joined(separator: " "))\""
            }
            failures.append(sentence)
        }
        if let maximum = thresholds.maxCommitLatencyMilliseconds {
            let late = segments.filter { ($0.commitLatencyMilliseconds ?? .min) > maximum }
            if let slowest = late.max(by: { $0.commitLatencyMilliseconds! < $1.commitLatencyMilliseconds! }) {
                failures.append("\(late.count) of \(segments.count) segments committed more than \(maximum) ms after their audio ended;"
                    + " slowest \(slowest.segment) at \(slowest.commitLatencyMilliseconds!) ms")
            }
        }
        if let missing = phrases.first(where: { !$0.found }) {
            let index = phrases.firstIndex(of: missing)! + 1
            failures.append("key phrase \(index) \"\(missing.phrase)\" is not in the run's transcript"
                + (index > 1 ? " after the phrase before it" : ""))
        }
        return failures
    }

    /// A rate with up to four decimals, as the outputs print it.
    static func format(_ rate: Double) -> String {
        let rounded = (rate * 10_000).rounded() / 10_000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
