/// NIST's matched-pairs sentence-segment word error test (MAPSSWE; Gillick and Cox, 1989), as sclite's
/// `sc_stats -t mapsswe` computes it (SCTK, `src/sclite/mtchprs.c`): each session's two alignments to
/// the same reference are cut into segments wherever both systems have `minimumGood` consecutive
/// reference words right; a segment keeps those boundary words on both sides, and only segments where
/// either system erred count. Over the segments' error differences Z (baseline minus candidate),
/// W = mean(Z) ÷ (sd(Z) ÷ √n), with the sample standard deviation, and the two-sided p-value is
/// 2 · P(N(0,1) ≥ |W|). As in sclite, W is 0 (and p 1) when every Z is the same.
public struct MatchedPairsTest: Sendable, Equatable {
    /// A stretch of one session where at least one system erred.
    public struct Segment: Sendable, Equatable {
        /// Reference words in it (sclite: the mean of both sides' counts, rounded down).
        public var referenceWords: Int
        public var baselineErrors: Int
        public var candidateErrors: Int
    }

    /// Every segment, session by session.
    public let segments: [Segment]
    /// W, the test statistic.
    public let statistic: Double
    /// The two-sided p-value.
    public let pValue: Double

    /// The test over sessions' alignments of the baseline's and the candidate's words to the same reference.
    public init(sessions: [(baseline: WordAlignment, candidate: WordAlignment)], minimumGood: Int = 2) {
        segments = sessions.flatMap { Self.segments(Self.slots($0.baseline), Self.slots($0.candidate), minimumGood: minimumGood) }
        let differences = segments.map { Double($0.baselineErrors - $0.candidateErrors) }
        let n = Double(differences.count)
        let mean = differences.reduce(0, +) / max(n, 1)
        let squares = differences.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        statistic = squares == 0 || n < 2 ? 0 : mean / ((squares / (n - 1)).squareRoot() / n.squareRoot())
        pValue = min(1, 2 * PairedTests.standardNormalUpperTail(abs(statistic)))
    }

    private enum Slot: Equatable { case correct, substitution, deletion, insertion }

    /// An alignment as sclite's path: one slot per reference word and per inserted word, in order.
    private static func slots(_ alignment: WordAlignment) -> [Slot] {
        alignment.steps.flatMap { step -> [Slot] in
            switch step.kind {
            case .equal: Array(repeating: .correct, count: step.reference.count)
            case .substitute: Array(repeating: .substitution, count: step.reference.count)
            case .delete: Array(repeating: .deletion, count: step.reference.count)
            case .insert: Array(repeating: .insertion, count: step.hypothesis.count)
            }
        }
    }

    /// sclite's `test_comp_sents`: states b (no error since the last boundary), e (in errors), g (counting
    /// words both have right). Both paths share one reference, so sclite's resynchronisation never applies.
    private static func segments(_ one: [Slot], _ two: [Slot], minimumGood: Int) -> [Segment] {
        enum State { case boundary, errors, good }
        var segments: [Segment] = []
        var first = 0, second = 0, endOfGoodFirst = 0, endOfGoodSecond = 0, good = 0
        var state = State.boundary
        func cut(through lastFirst: Int, _ lastSecond: Int) {
            let back = minimumGood - 1
            let a = count(one, from: max(0, endOfGoodFirst - back), through: lastFirst)
            let b = count(two, from: max(0, endOfGoodSecond - back), through: lastSecond)
            if a.errors > 0 || b.errors > 0 {
                segments.append(Segment(referenceWords: (a.words + b.words) / 2, baselineErrors: a.errors, candidateErrors: b.errors))
            }
        }
        while first < one.count {
            while first < one.count, one[first] == .insertion { first += 1; state = .errors }
            while second < two.count, two[second] == .insertion { second += 1; state = .errors }
            let bothRight = first < one.count && one[first] == .correct && second < two.count && two[second] == .correct
            switch state {
            case .boundary:
                if bothRight { endOfGoodFirst = first; endOfGoodSecond = second } else { state = .errors }
            case .errors, .good:
                guard bothRight else { state = .errors; break }
                good = state == .errors ? 1 : good + 1
                if good == minimumGood {
                    cut(through: first, second)
                    endOfGoodFirst = first
                    endOfGoodSecond = second
                    state = .boundary
                } else {
                    state = .good
                }
            }
            if first < one.count { first += 1 }
            if second < two.count { second += 1 }
        }
        if state != .boundary || two.count > second { cut(through: one.count - 1, two.count - 1) }
        return segments
    }

    /// Errors (slots not correct) and reference words (slots not inserted) in `slots[from...through]`.
    private static func count(_ slots: [Slot], from: Int, through: Int) -> (errors: Int, words: Int) {
        guard from <= through else { return (0, 0) }
        let stretch = slots[from...through]
        return (stretch.count { $0 != .correct }, stretch.count { $0 != .insertion })
    }
}
