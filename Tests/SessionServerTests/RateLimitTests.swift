import Foundation
import Hummingbird
@testable import SessionServer
import Testing

@Suite struct RateLimitTests {
    @Test func aTokenPastItsRateIsAnswered429WithRetryAfterAndAnotherTokenIsNot() async throws {
        var configuration = ServerConfiguration()
        // One request each 1,000 s: the bucket cannot refill however slowly a loaded machine runs the test.
        configuration.rateLimit = RateLimit(perSecond: 0.001, burst: 2)
        try await withServer(configuration) { fixture in
            try await fixture.test { client in
                for _ in 0..<2 {
                    let allowed = try await client.execute(uri: "/v1/sessions", method: .get, headers: fixture.bearer(.read))
                    #expect(allowed.status == .ok)
                }
                let refused = try await client.execute(uri: "/v1/sessions", method: .get, headers: fixture.bearer(.read))
                #expect(refused.status == .tooManyRequests)
                #expect(refused.headers[.retryAfter].flatMap(Int.init).map { (1...1000).contains($0) } == true, "\(refused.headers)")
                #expect(refused.object["type"] as? String == "urn:sessionstore:problem:rate-limited")
                let other = try await client.execute(uri: "/v1/sessions", method: .get, headers: fixture.bearer(.admin))
                #expect(other.status == .ok)
                // A refused request does nothing: an append past the limit stores nothing.
                let lines = sessionLines()
                let append = try await client.execute(uri: "/v1/events", method: .post, headers: fixture.bearer(.read), body: ByteBuffer(string: lines.body))
                #expect(append.status == .tooManyRequests)
            }
        }
    }

    @Test func aBucketRefillsAtTheRateUpToTheBurst() {
        let limiter = RateLimiter(RateLimit(perSecond: 2, burst: 3))
        let start = ContinuousClock.now
        #expect((0..<3).map { _ in limiter.wait(for: "a", now: start) } == [nil, nil, nil])
        #expect(limiter.wait(for: "a", now: start) == 0.5)
        #expect(limiter.wait(for: "a", now: start + .milliseconds(500)) == nil)
        // Ten idle seconds refill three, not twenty.
        let later = start + .seconds(10)
        #expect((0..<4).map { _ in limiter.wait(for: "a", now: later) != nil } == [false, false, false, true])
        #expect(limiter.wait(for: "b", now: later) == nil)
    }
}
