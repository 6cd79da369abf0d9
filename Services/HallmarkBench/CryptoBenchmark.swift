import Foundation
import HallmarkCrypto

/// Single-threaded crypto measurements for `hallmark bench crypto`. Each measurement repeats
/// its operation for at least `duration` per round; rounds alternate the order of the
/// contenders so they see the same machine conditions, and the best round counts.
package struct CryptoBenchmark: Sendable {
    /// DESIGN §4: two interleaved SHA-NI derivations ≈ 10.2 ms each, the per-core limit.
    package static let designInterleavedRate = 1000.0 / 10.2

    /// PBKDF2 iterations per derivation.
    package var iterations = 200_000
    /// Derivations per batched call.
    package var batchSize = 8
    /// Minimum time per measurement per round.
    package var duration: Duration = .milliseconds(1500)
    /// Rounds (the best is reported).
    package var rounds = 2

    /// Creates a benchmark with defaults.
    package init() {}

    /// All rates, per second.
    package struct Results: Sendable {
        /// PBKDF2 derivations per second by contender, in display order.
        package var pbkdf2: [(name: String, perSecond: Double)] = []
        /// AES-256-GCM throughput (MB/s) per backend: seal and open of 1 KB and 1 MB messages.
        package var aesGCM: [(name: String, seal1KB: Double, open1KB: Double, seal1MB: Double, open1MB: Double)] = []
        /// HKDF-SHA256 derivations (32 bytes) per second.
        package var hkdfPerSecond = 0.0
        /// Whether the SHA-NI kernel ran.
        package var shaExtensions = false

        func rate(_ name: String) -> Double { pbkdf2.first { $0.name == name }?.perSecond ?? 0 }
        /// Batched fast path over OpenSSL.
        package var batchedOverOpenSSL: Double { rate("fast batched") / max(rate("OpenSSL PKCS5_PBKDF2_HMAC"), 1e-9) }
        /// Batched fast path over the DESIGN interleaved figure (≈ 98/s).
        package var batchedOverDesign: Double { rate("fast batched") / CryptoBenchmark.designInterleavedRate }
    }

    /// Runs every measurement.
    package func run() throws -> Results {
        var results = Results()
        results.shaExtensions = PBKDF2.hasSHAExtensions
        let salt = Data("1852025-01-01T00:00:00.000Z".utf8), password = Data("test-secret".utf8)
        let single = PBKDF2.Request(password: password, salt: salt, iterations: iterations)
        let batch = (0..<batchSize).map {
            PBKDF2.Request(password: Data("secret-\($0)".utf8), salt: salt, iterations: iterations)
        }
        let contenders: [(String, Int, () throws -> Void)] = [
            ("OpenSSL PKCS5_PBKDF2_HMAC", 1, { _ = try PBKDF2.deriveBatch([single], backend: .openSSL) }),
            ("swift-crypto KDF.Insecure.PBKDF2", 1, { _ = try PBKDF2.deriveBatch([single], backend: .swiftCrypto) }),
            ("fast single", 1, { _ = try PBKDF2.deriveBatch([single], backend: .fast) }),
            ("fast batched", batchSize, { _ = try PBKDF2.deriveBatch(batch, backend: .fast) }),
        ]
        var best = [Double](repeating: 0, count: contenders.count)
        for round in 0..<rounds {
            let order = round % 2 == 0 ? Array(contenders.indices) : contenders.indices.reversed()
            for i in order {
                best[i] = max(best[i], try measure(perCall: contenders[i].1, contenders[i].2))
            }
        }
        results.pbkdf2 = zip(contenders, best).map { ($0.0.0, $0.1) }

        let key = Data(repeating: 7, count: 32), nonce = Data(count: 12)
        // Raise glibc's dynamic mmap threshold first (freeing a large mmapped block does), so
        // whichever backend runs first does not pay for a fresh mmap + page faults per 1 MB call.
        _ = Data(count: 8 << 20).withUnsafeBytes { $0.count }
        for backend in AESGCM256.Backend.allCases {
            var rates: [Double] = []
            for size in [1024, 1 << 20] {
                let message = Data(repeating: 1, count: size)
                let sealed = try AESGCM256.seal(message, key: key, nonce: nonce, backend: backend)
                let mb = Double(size) / 1_048_576
                rates.append(
                    try measure(perCall: 1) { _ = try AESGCM256.seal(message, key: key, nonce: nonce, backend: backend) } * mb)
                rates.append(try measure(perCall: 1) { _ = try AESGCM256.open(sealed, key: key, backend: backend) } * mb)
            }
            results.aesGCM.append(
                (
                    backend == .openSSL ? "OpenSSL EVP" : "swift-crypto AES.GCM",
                    rates[0], rates[1], rates[2], rates[3]
                ))
        }
        results.hkdfPerSecond = try measure(perCall: 1) {
            _ = try HKDFSHA256.derive(ikm: key, info: Data("inviso-session-v1".utf8), length: 32)
        }
        return results
    }

    /// Operations per second of `body`, which performs `perCall` operations.
    func measure(perCall: Int, _ body: () throws -> Void) throws -> Double {
        try OperationRate.measure(for: duration, perCall: perCall, body)
    }
}
