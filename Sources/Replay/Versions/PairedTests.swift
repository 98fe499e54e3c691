import Foundation

/// Matched-pairs significance tests over per-session error counts of two systems, defined as
/// scipy.stats defines them (docs/REPLAY.md, "Statistics"), so that a team can check every p-value
/// against code nobody here wrote.
public enum PairedTests {
    /// The two-sided exact sign test: of the sessions where the two systems made a different number of
    /// errors, `better` went one way and `worse` the other; ties are left out. scipy:
    /// `binomtest(better, better + worse, 0.5).pvalue`. 1 when there is nothing to count.
    public static func signTest(better: Int, worse: Int) -> Double {
        let n = better + worse
        guard n > 0, better != worse else { return 1 }
        let tail = (0...min(better, worse)).reduce(0.0) { $0 + binomialProbability(n: n, k: $1) }
        return min(1, 2 * tail)
    }

    /// The Wilcoxon signed-rank test of differences (candidate minus baseline, per session).
    public struct SignedRank: Sendable, Equatable {
        /// The sum of the ranks of the positive differences (scipy's `r_plus`).
        public var positiveRankSum: Double
        /// Differences that are not zero (zeros are left out: Wilcoxon's own treatment).
        public var count: Int
        /// Whether the p-value is exact (the null distribution, or every assignment of signs) rather than
        /// the normal approximation.
        public var exact: Bool
        /// The two-sided p-value; 1 when every difference is zero.
        public var pValue: Double
    }

    /// Wilcoxon's signed-rank test, two-sided, zeros left out, sizes ranked with ties given their average
    /// rank, computed as scipy's `wilcoxon(d)` does by default: for at most 50 differences, from the exact
    /// null distribution when none is zero and no two sizes tie, else for at most 13 by enumerating every
    /// assignment of signs (scipy's exact permutation test); otherwise the normal approximation with the
    /// tie correction and no continuity correction.
    public static func wilcoxonSignedRank(_ differences: [Double]) -> SignedRank {
        let nonzero = differences.filter { $0 != 0 }
        let n = nonzero.count
        guard n > 0 else { return SignedRank(positiveRankSum: 0, count: 0, exact: true, pValue: 1) }
        let sizes = nonzero.map(abs)
        let order = sizes.indices.sorted { sizes[$0] < sizes[$1] }
        var ranks = [Double](repeating: 0, count: n)
        var tieTerm = 0.0
        var start = 0
        while start < n {
            var end = start
            while end + 1 < n, sizes[order[end + 1]] == sizes[order[start]] { end += 1 }
            let tied = Double(end - start + 1)
            for position in start...end { ranks[order[position]] = Double(start + end + 2) / 2 }
            tieTerm += tied * tied * tied - tied
            start = end + 1
        }
        let positive = zip(nonzero, ranks).reduce(0.0) { $0 + ($1.0 > 0 ? $1.1 : 0) }
        let count = Double(n)
        if differences.count <= 50, tieTerm == 0, n == differences.count {
            let distribution = signedRankDistribution(n)
            let upper = distribution[Int(positive.rounded(.down))...].reduce(0, +)
            let lower = distribution[...Int(positive.rounded(.up))].reduce(0, +)
            return SignedRank(positiveRankSum: positive, count: n, exact: true, pValue: min(1, 2 * min(upper, lower)))
        }
        if differences.count <= 13 {
            let tolerance = abs(positive) * 1e-14
            var atMost = 0, atLeast = 0
            for signs in 0..<(1 << n) {
                let sum = ranks.indices.reduce(0.0) { signs & (1 << $1) != 0 ? $0 + ranks[$1] : $0 }
                if sum <= positive + tolerance { atMost += 1 }
                if sum >= positive - tolerance { atLeast += 1 }
            }
            let p = 2 * Double(min(atMost, atLeast)) / Double(1 << n)
            return SignedRank(positiveRankSum: positive, count: n, exact: true, pValue: min(1, p))
        }
        let mean = count * (count + 1) / 4
        let spread = ((count * (count + 1) * (2 * count + 1) - tieTerm / 2) / 24).squareRoot()
        let z = spread == 0 ? 0 : (positive - mean) / spread
        return SignedRank(positiveRankSum: positive, count: n, exact: false, pValue: min(1, 2 * standardNormalUpperTail(abs(z))))
    }

    /// P(Z ≥ z) for a standard normal Z.
    public static func standardNormalUpperTail(_ z: Double) -> Double {
        0.5 * erfc(z / 2.0.squareRoot())
    }

    /// P(X = k) for X ~ Binomial(n, 1/2), in logarithms so that large n does not overflow.
    private static func binomialProbability(n: Int, k: Int) -> Double {
        let ways: Double = lgamma(Double(n + 1)) - lgamma(Double(k + 1)) - lgamma(Double(n - k + 1))
        return exp(ways - Double(n) * log(2.0))
    }

    /// P(T = t) for t in 0...n(n+1)/2, T the sum of the ranks 1...n each taken with probability 1/2.
    private static func signedRankDistribution(_ n: Int) -> [Double] {
        var ways = [Double](repeating: 0, count: n * (n + 1) / 2 + 1)
        ways[0] = 1
        var reach = 0
        for rank in 1...n {
            reach += rank
            for total in stride(from: reach, through: rank, by: -1) { ways[total] += ways[total - rank] }
        }
        let all = pow(2.0, Double(n))
        return ways.map { $0 / all }
    }
}
