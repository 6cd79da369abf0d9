import Foundation
import HallmarkCore
import HallmarkCrypto
import Metrics

/// SIGN-1 keys for (secret version, salt) pairs: from the ``DerivedKeyCache`` when a retry
/// of the same request already paid for them, else from the ``PBKDF2WorkerPool``.
public struct KeyDeriver: Sendable {
    let pool: PBKDF2WorkerPool
    let cache: DerivedKeyCache
    /// The protocol's ``SmileIDSignature/iterations``; only the fuzz targets lower it, so that
    /// their inputs spend their time in the parsers rather than in PBKDF2.
    let iterations: Int
    private let cacheHits: Counter
    private let derivationTime: Timer

    public init(pool: PBKDF2WorkerPool, cache: DerivedKeyCache) {
        self.init(pool: pool, cache: cache, iterations: SmileIDSignature.iterations)
    }

    package init(pool: PBKDF2WorkerPool, cache: DerivedKeyCache, iterations: Int) {
        self.pool = pool
        self.cache = cache
        self.iterations = iterations
        let dims = [("service", pool.service)]
        cacheHits = Counter(label: "hallmark_smileid_key_cache_hits_total", dimensions: dims)
        derivationTime = Timer(label: "hallmark_smileid_pbkdf2_wait_ns", dimensions: dims)
    }

    /// One key per secret version, all for `salt`, in the versions' order.
    public func keys(versions: [SecretVersion], salt: Data) async throws -> [Data] {
        var keys = versions.map { cache.get(version: $0.version, salt: salt) }
        let missing = keys.indices.filter { keys[$0] == nil }
        cacheHits.increment(by: versions.count - missing.count)
        guard !missing.isEmpty else { return keys.map { $0! } }
        let start = ContinuousClock.now
        let derived = try await pool.derive(
            missing.map {
                PBKDF2.Request(password: Data(versions[$0].secret.utf8), salt: salt, iterations: iterations)
            })
        derivationTime.recordNanoseconds((ContinuousClock.now - start).nanoseconds)
        for (i, key) in zip(missing, derived) {
            keys[i] = key
            cache.put(version: versions[i].version, salt: salt, key: key)
        }
        return keys.map { $0! }
    }
}
