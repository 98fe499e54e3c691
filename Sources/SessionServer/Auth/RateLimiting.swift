import Foundation
import Hummingbird
import Synchronization

/// Requests a token may make: `perSecond` on average, `burst` at once (a token bucket per token).
package struct RateLimit: Sendable, Equatable {
    package var perSecond: Double
    package var burst: Int

    package init(perSecond: Double, burst: Int) {
        self.perSecond = perSecond
        self.burst = burst
    }
}

/// One token bucket per actor: each request takes one; buckets refill at the limit's rate up to its burst.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let limit: RateLimit
    private let buckets = Mutex<[String: Bucket]>([:])
    /// Buckets kept at most; past it, those that have refilled are forgotten (they hold nothing a new one would not).
    private let maximumBuckets = 10_000

    init(_ limit: RateLimit) { self.limit = limit }

    /// Nil when `actor` may make a request now (and it is counted), else the seconds until it may.
    func wait(for actor: String, now: ContinuousClock.Instant = .now) -> Double? {
        buckets.withLock { buckets in
            var bucket = buckets[actor] ?? Bucket(tokens: Double(limit.burst), updated: now)
            let elapsed = Double((now - bucket.updated).components.attoseconds) / 1e18 + Double((now - bucket.updated).components.seconds)
            bucket.tokens = min(Double(limit.burst), bucket.tokens + elapsed * limit.perSecond)
            bucket.updated = now
            defer {
                buckets[actor] = bucket
                if buckets.count > maximumBuckets { forgetFull(&buckets, now: now) }
            }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return (1 - bucket.tokens) / limit.perSecond
        }
    }

    private func forgetFull(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant) {
        let refill = Double(limit.burst) / limit.perSecond
        buckets = buckets.filter { now - $0.value.updated < .seconds(refill) }
    }
}

/// Answers a request past its token's rate limit with 429 and `Retry-After` (whole seconds, rounded up), before the
/// route runs: nothing of it is done. A live WebSocket counts once, at its handshake.
struct RateLimiting: RouterMiddleware {
    typealias Context = ServerContext
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let actor = context.principal?.actor, let wait = limiter.wait(for: actor) {
            var problem = Problem(.rateLimited, detail: "\(actor) may make another request in \(String(format: "%.1f", wait)) s")
            problem.retryAfter = max(1, Int(wait.rounded(.up)))
            throw problem
        }
        return try await next(request, context)
    }
}
