@testable import EdgeCore
import Testing

/// ``RateLimiter``: the reference's 500 per 10 minutes per address, as a token bucket.
@Suite("Edge rate limiter", .timeLimit(.minutes(1)))
struct RateLimiterTests {
    @Test func aClientGetsItsLimitThenWaitsForTheRefill() {
        let limiter = RateLimiter(limit: 3, window: .seconds(60))
        let t0 = ContinuousClock.now
        for _ in 0..<3 { #expect(limiter.take("a", now: t0) == nil) }
        #expect(limiter.take("a", now: t0) == 20)
        #expect(limiter.take("b", now: t0) == nil)
        #expect(limiter.take("a", now: t0 + .seconds(19)) != nil)
        #expect(limiter.take("a", now: t0 + .seconds(21)) == nil)
        // Never more than the limit stored, however long the client was away.
        let later = t0 + .seconds(3_600)
        for _ in 0..<3 { #expect(limiter.take("a", now: later) == nil) }
        #expect(limiter.take("a", now: later) != nil)
    }

    @Test func zeroIsNoLimit() {
        let limiter = RateLimiter(limit: 0, window: .seconds(1))
        for _ in 0..<1_000 { #expect(limiter.take("a") == nil) }
    }
}
