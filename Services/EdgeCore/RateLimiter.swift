import Foundation
import Synchronization

/// A per-client rate limit (DESIGN BM-EDGE's 429): a token bucket per client that holds
/// `limit` requests and refills `limit` per `window`, as the Birthmark reference server's 500
/// per 10 minutes per address says. Per replica: N replicas behind a balancer without affinity
/// allow up to N times the limit. Clients whose bucket is full are forgotten when more than
/// ``maxClients`` are tracked, so memory stays bounded whatever the addresses.
package final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var at: ContinuousClock.Instant
    }

    /// Most clients tracked before the full buckets are dropped.
    static let maxClients = 100_000

    private let capacity: Double
    private let perSecond: Double
    private let buckets = Mutex<[String: Bucket]>([:])

    /// `limit` requests per `window`; `limit` 0 allows everything.
    package init(limit: Int, window: Duration) {
        capacity = Double(limit)
        let seconds = Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18
        perSecond = seconds > 0 ? Double(limit) / seconds : 0
    }

    /// Takes one request for `client`: nil when allowed, else the whole seconds until one is.
    package func take(_ client: String, now: ContinuousClock.Instant = .now) -> Int? {
        guard capacity > 0 else { return nil }
        return buckets.withLock { all -> Int? in
            var bucket = all[client] ?? Bucket(tokens: capacity, at: now)
            bucket.tokens = min(capacity, bucket.tokens + perSecond * Self.seconds(now - bucket.at))
            bucket.at = now
            defer {
                all[client] = bucket
                if all.count > Self.maxClients { prune(&all, now: now) }
            }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }

    private func prune(_ all: inout [String: Bucket], now: ContinuousClock.Instant) {
        all = all.filter { $0.value.tokens + perSecond * Self.seconds(now - $0.value.at) < capacity }
    }

    private static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
