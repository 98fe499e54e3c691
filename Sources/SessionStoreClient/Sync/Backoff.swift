import Foundation

/// Exponential backoff with full jitter: the n-th wait is uniform in [0, min(cap, base · 2ⁿ)], so that clients that lost
/// the server together do not come back together.
public struct Backoff: Sendable {
    public var base: Duration
    public var cap: Duration

    public init(base: Duration = .milliseconds(250), cap: Duration = .seconds(30)) {
        self.base = base
        self.cap = cap
    }

    /// The wait before retry number `attempt` (from 0), drawn with `random`.
    public func delay(attempt: Int, using random: inout some RandomNumberGenerator) -> Duration {
        let ceiling = min(cap.seconds, base.seconds * pow(2, Double(min(attempt, 40))))
        return .seconds(Double.random(in: 0...ceiling, using: &random))
    }
}

extension Duration {
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
