import Foundation
import Replay
import Testing

/// The statistics of `compare --baseline --candidate` on numbers small enough to check by hand; the CLI's
/// tests check the same against scipy and numpy (CompareLabelsTests).
@Suite struct VersionStatisticsTests {
    @Test func theSignTestIsTwiceTheBinomialTailAndIgnoresNothingButTies() {
        #expect(abs(PairedTests.signTest(better: 0, worse: 6) - 2.0 / 64) < 1e-15)
        #expect(PairedTests.signTest(better: 6, worse: 0) == PairedTests.signTest(better: 0, worse: 6))
        #expect(abs(PairedTests.signTest(better: 1, worse: 9) - 2 * 11.0 / 1024) < 1e-15)
        #expect(PairedTests.signTest(better: 4, worse: 4) == 1)
        #expect(PairedTests.signTest(better: 0, worse: 0) == 1)
        #expect(PairedTests.signTest(better: 300, worse: 700) < 1e-30, "large counts do not overflow")
    }

    @Test func wilcoxonIsExactWithoutTiesAndEnumeratesSignsWithThem() {
        let allUp = PairedTests.wilcoxonSignedRank([1, 2, 3, 4, 5])
        #expect(allUp.exact && allUp.positiveRankSum == 15 && allUp.pValue == 2.0 / 32)
        let mirrored = PairedTests.wilcoxonSignedRank([-1, -2, -3, -4, -5])
        #expect(mirrored.pValue == allUp.pValue && mirrored.positiveRankSum == 0)
        // Ties (three 3s) and a zero: every assignment of signs to the five non-zero differences.
        let tied = PairedTests.wilcoxonSignedRank([2, 3, 3, 0, 3, 3])
        #expect(tied.exact && tied.count == 5 && tied.pValue == 2.0 / 32)
        let none = PairedTests.wilcoxonSignedRank([0, 0, 0])
        #expect(none.pValue == 1 && none.count == 0)
    }

    @Test func largeSamplesWithTiesUseTheNormalApproximation() {
        let differences = (0..<60).map { Double($0 % 3) - 0.5 }
        let result = PairedTests.wilcoxonSignedRank(differences)
        #expect(!result.exact)
        #expect(result.pValue > 0 && result.pValue < 1)
    }

    @Test func theBootstrapIsTheSameForTheSameSeedAndCollapsesWhenEverySessionDiffersAlike() throws {
        let sessions = [(baseline: 2, candidate: 4, words: 20), (baseline: 1, candidate: 1, words: 10), (baseline: 5, candidate: 3, words: 30)]
        let one = try #require(BootstrapInterval(sessions: sessions, confidence: 0.95, resamples: 2_000, seed: 7))
        let again = try #require(BootstrapInterval(sessions: sessions, confidence: 0.95, resamples: 2_000, seed: 7))
        #expect(one == again)
        #expect(one.low <= 0 && one.high >= 0, "one better, one worse, one tied: the interval holds zero")
        let alike = try #require(BootstrapInterval(sessions: [(1, 2, 10), (3, 4, 10)], confidence: 0.9, resamples: 500, seed: 1))
        #expect(abs(alike.low - 0.1) < 1e-12 && abs(alike.high - 0.1) < 1e-12)
        #expect(BootstrapInterval(sessions: [], confidence: 0.95, resamples: 10, seed: 1) == nil)
    }

    @Test func matchedPairsCutsWhereBothSystemsHaveTwoWordsRight() {
        let reference = "a b c d e f g h i j".split(separator: " ").map(String.init)
        func aligned(_ text: String) -> WordAlignment {
            WordAlignment(reference: reference, hypothesis: text.split(separator: " ").map(String.init))
        }
        // Errors far apart: two segments, each with one system's error.
        let apart = MatchedPairsTest(sessions: [(aligned("a b x d e f g h i j"), aligned("a b c d e f g y i j"))])
        #expect(apart.segments.map { [$0.baselineErrors, $0.candidateErrors] } == [[1, 0], [0, 1]])
        #expect(apart.segments.first?.referenceWords == 5, "the error and two right words on each side")
        // Errors one right word apart: one segment.
        let close = MatchedPairsTest(sessions: [(aligned("a b x d e f g h i j"), aligned("a b c d x f g h i j"))])
        #expect(close.segments.map { [$0.baselineErrors, $0.candidateErrors] } == [[1, 1]])
        // An insertion at the end, and no error anywhere else, is still a segment.
        let tail = MatchedPairsTest(sessions: [(aligned("a b c d e f g h i j"), aligned("a b c d e f g h i j k"))])
        #expect(tail.segments.map { [$0.baselineErrors, $0.candidateErrors] } == [[0, 1]])
        #expect(MatchedPairsTest(sessions: [(aligned("a b c d e f g h i j"), aligned("a b c d e f g h i j"))]).segments.isEmpty)
    }

    @Test func matchedPairsIsSignificantWhenOneSystemErrsInEverySegment() {
        let reference = (0..<60).map { "w\($0)" }
        let worse = reference.enumerated().map { $0.offset % 6 == 3 ? "x" : $0.element }
        let sometimes = reference.enumerated().map { $0.offset % 12 == 3 ? "x" : $0.element }
        let test = MatchedPairsTest(sessions: [(WordAlignment(reference: reference, hypothesis: sometimes),
                                                WordAlignment(reference: reference, hypothesis: worse))])
        #expect(test.segments.count == 10)
        #expect(test.statistic < 0 && test.pValue < 0.01, "candidate errs in all 10 segments, baseline in 5: W \(test.statistic)")
    }
}
