import ArgumentParser
import Foundation
import HallmarkCrypto

/// `hallmark bench crypto`: PBKDF2 backends, AES-GCM and HKDF measured side by side on one
/// thread, with the ratios the fast path is held to (batched ≥ 5× OpenSSL, ≥ 85% of the
/// DESIGN interleaved figure ≈ 98/s). Build with `-c release` for meaningful numbers.
package struct BenchCryptoCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "crypto", abstract: "Measure PBKDF2 (OpenSSL, swift-crypto, fast single/batched), AES-GCM and HKDF.")

    @Option(help: "PBKDF2 iterations per derivation.") var iterations = 200_000
    @Option(help: "Derivations per batched call.") var batch = 8
    @Option(help: "Seconds per measurement per round.") var seconds = 1.5
    @Option(help: "Rounds; the best round is reported.") var rounds = 2
    @Flag(help: "Print one JSON object instead of a table.") var json = false

    package init() {}

    package func run() throws {
        var bench = CryptoBenchmark()
        bench.iterations = iterations
        bench.batchSize = max(1, batch)
        bench.duration = .milliseconds(Int(seconds * 1000))
        bench.rounds = max(1, rounds)
        let r = try bench.run()
        if json {
            var object: [String: Any] = [
                "sha_extensions": r.shaExtensions, "iterations": iterations, "batch": bench.batchSize,
                "hkdf_ops_s": r.hkdfPerSecond,
                "batched_over_openssl": r.batchedOverOpenSSL, "batched_over_design": r.batchedOverDesign,
            ]
            object["pbkdf2_per_s"] = Dictionary(uniqueKeysWithValues: r.pbkdf2.map { ($0.name, $0.perSecond) })
            object["aes_gcm_mb_s"] = Dictionary(
                uniqueKeysWithValues: r.aesGCM.map {
                    ($0.name, ["seal_1kb": $0.seal1KB, "open_1kb": $0.open1KB, "seal_1mb": $0.seal1MB, "open_1mb": $0.open1MB])
                })
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        print("PBKDF2-HMAC-SHA256, \(iterations) iterations, 32 bytes, one thread (SHA-NI: \(r.shaExtensions ? "yes" : "no"))")
        for (name, rate) in r.pbkdf2 {
            print("  \(pad(name, 34)) \(fmt(rate, 8, 1)) derivations/s  \(fmt(1000 / max(rate, 1e-9), 7, 2)) ms each")
        }
        print("AES-256-GCM, MB/s                   seal 1 KB  open 1 KB  seal 1 MB  open 1 MB")
        for a in r.aesGCM {
            print(
                "  \(pad(a.name, 32)) \(fmt(a.seal1KB, 9, 0))  \(fmt(a.open1KB, 9, 0))  \(fmt(a.seal1MB, 9, 0))  \(fmt(a.open1MB, 9, 0))"
            )
        }
        print("HKDF-SHA256 (32-byte output)")
        print(
            "  \(pad("derive", 34)) \(fmt(r.hkdfPerSecond, 8, 0)) ops/s  \(fmt(1e6 / max(r.hkdfPerSecond, 1e-9), 7, 2)) µs each")
        print("Ratios")
        print(
            "  batched / OpenSSL                  \(fmt(r.batchedOverOpenSSL, 8, 2))×   goal ≥ 5×    "
                + (r.batchedOverOpenSSL >= 5 ? "PASS" : "FAIL"))
        print(
            "  batched / DESIGN 2-interleaved     \(fmt(r.batchedOverDesign * 100, 8, 1))%   goal ≥ 85% of "
                + "\(fmt(CryptoBenchmark.designInterleavedRate, 0, 1))/s  " + (r.batchedOverDesign >= 0.85 ? "PASS" : "FAIL"))
    }

    private func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }

    private func fmt(_ value: Double, _ width: Int, _ decimals: Int) -> String {
        let s = String(format: "%.\(decimals)f", value)
        return s.count >= width ? s : String(repeating: " ", count: width - s.count) + s
    }
}
