import SessionModel

/// A confidence interval of the difference in pooled word error rate between two systems, by the
/// bootstrap over sessions of Bisani and Ney ("Bootstrap estimates for confidence intervals in ASR
/// performance evaluation", ICASSP 2004): draw as many sessions as there are, with replacement, many
/// times; each draw's difference is Σ(candidate errors − baseline errors) ÷ Σ reference words over the
/// sessions drawn; the interval is the draws' percentiles (numpy's default, linear, definition).
///
/// Deterministic: the draws come from SplitMix64 (`SeededGenerator`) seeded with `seed`, and a draw's index is the high
/// word of a 64 × 64-bit product (Lemire's multiply-shift), so that the same numbers and seed give the
/// same interval on every machine and Swift version.
public struct BootstrapInterval: Sendable, Equatable {
    /// The interval's ends.
    public var low: Double
    public var high: Double

    /// The interval from `low` to `high`.
    public init(low: Double, high: Double) {
        self.low = low
        self.high = high
    }

    /// The interval at `confidence` (0.95: the 2.5th and 97.5th percentiles) from `resamples` draws.
    /// Sessions are (baseline errors, candidate errors, reference words); nil without sessions.
    public init?(sessions: [(baseline: Int, candidate: Int, words: Int)], confidence: Double, resamples: Int, seed: UInt64) {
        guard !sessions.isEmpty, resamples > 0 else { return nil }
        var generator = SeededGenerator(seed: seed)
        let count = UInt64(sessions.count)
        var differences = [Double]()
        differences.reserveCapacity(resamples)
        for _ in 0..<resamples {
            var errors = 0, words = 0
            for _ in 0..<sessions.count {
                let session = sessions[Int(count.multipliedFullWidth(by: generator.next()).high)]
                errors += session.candidate - session.baseline
                words += session.words
            }
            differences.append(words == 0 ? 0 : Double(errors) / Double(words))
        }
        differences.sort()
        let tail = (1 - confidence) / 2
        low = Self.percentile(differences, tail)
        high = Self.percentile(differences, 1 - tail)
    }

    /// numpy.percentile's linear interpolation between the two nearest of the sorted values.
    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        let position = fraction * Double(sorted.count - 1)
        let below = Int(position.rounded(.down)), above = min(below + 1, sorted.count - 1)
        return sorted[below] + (sorted[above] - sorted[below]) * (position - Double(below))
    }
}
