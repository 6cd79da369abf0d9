import Foundation
import HallmarkTestSupport
import Testing
@testable import HallmarkCrypto

@Suite(.timeLimit(.minutes(2))) struct PBKDF2Tests {
    static let localBackends: [PBKDF2.Backend] = [.fast, .portable, .openSSL, .swiftCrypto]

    // Well-known "password"/"salt" vectors and RFC 7914 §11.
    @Test(arguments: [
        ("password", "salt", 1, 32, "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b"),
        ("password", "salt", 2, 32, "ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43"),
        ("password", "salt", 4096, 32, "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"),
        (
            "passwd", "salt", 1, 64,
            "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
        ),
        (
            "Password", "NaCl", 80000, 64,
            "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"
        ),
    ])
    func publishedVectors(password: String, salt: String, iterations: Int, length: Int, expected: String) throws {
        for backend in Self.localBackends {
            let key = try PBKDF2.deriveSHA256(
                password: Data(password.utf8), salt: Data(salt.utf8),
                iterations: iterations, keyLength: length, backend: backend)
            #expect(Hex.encode(key) == expected, "backend \(backend)")
        }
    }

    /// Random passwords (including > 64 bytes, which HMAC hashes first), salts, lengths
    /// (several output blocks, partial last block) and iteration counts: fast and portable
    /// paths byte-identical to OpenSSL's PKCS5_PBKDF2_HMAC.
    @Test func randomInputsMatchOpenSSL() throws {
        var rng = SplitMix64(seed: 0x5EED)
        var requests: [PBKDF2.Request] = []
        for _ in 0..<60 {
            let pw = rng.bytes(Int.random(in: 0...150, using: &rng))
            let salt = rng.bytes(Int.random(in: 0...130, using: &rng))
            requests.append(
                PBKDF2.Request(
                    password: pw, salt: salt, iterations: Int.random(in: 1...300, using: &rng),
                    keyLength: Int.random(in: 1...100, using: &rng)))
        }
        let openSSL = try PBKDF2.deriveBatch(requests, backend: .openSSL)
        #expect(try PBKDF2.deriveBatch(requests, backend: .fast) == openSSL)
        #expect(try PBKDF2.deriveBatch(requests, backend: .portable) == openSSL)
        // Single calls agree with the batch (odd/even pairing must not matter).
        for (r, expected) in zip(requests.prefix(5), openSSL) {
            #expect(
                try PBKDF2.deriveSHA256(
                    password: r.password, salt: r.salt, iterations: r.iterations,
                    keyLength: r.keyLength) == expected)
        }
    }

    /// A few full-strength derivations, batched (interleaved pairs with unequal iteration
    /// counts and an odd one out).
    @Test func fullStrengthMatchesOpenSSL() throws {
        let requests = [
            PBKDF2.Request(
                password: Data("test-secret".utf8), salt: Data("1852025-01-01T00:00:00.000Z".utf8),
                iterations: 200_000),
            PBKDF2.Request(password: Data("other".utf8), salt: Data("salt".utf8), iterations: 199_999, keyLength: 40),
            PBKDF2.Request(password: Data(), salt: Data(), iterations: 200_000),
        ]
        let fast = try PBKDF2.deriveBatch(requests)
        #expect(Hex.encode(fast[0]) == "8fb37875dda37752d74918044a40e36134171333e404ac6de730f35af8742573")
        for (r, key) in zip(requests, fast).dropFirst() {
            #expect(
                try PBKDF2.deriveSHA256(
                    password: r.password, salt: r.salt, iterations: r.iterations,
                    keyLength: r.keyLength, backend: .openSSL) == key)
        }
    }

    @Test func rejectsBadArguments() throws {
        for (iterations, length) in [(0, 32), (-1, 32), (1, 0), (1, -5)] {
            expectCode(.invalidArgument) {
                _ = try PBKDF2.deriveSHA256(password: Data(), salt: Data(), iterations: iterations, keyLength: length)
            }
        }
        #expect(try PBKDF2.deriveBatch([]) == [])
    }

    /// The fast path's CPU check agrees with the kernel's view of the CPU (x86-64 Linux: the
    /// `sha_ni` flag in /proc/cpuinfo), so the SHA-NI kernel runs exactly where it can.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/cpuinfo") && Self.isX86))
    func detectsTheSHAExtensionsTheKernelReports() throws {
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flags = cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") }.map { $0.split(separator: " ") } ?? []
        #expect(!flags.isEmpty, "no flags line in /proc/cpuinfo")
        #expect(PBKDF2.hasSHAExtensions == flags.contains("sha_ni"))
        // Pairs only where the SHA-NI kernel interleaves them; the portable loop runs them in turn.
        #expect(PBKDF2.preferredBatch == (flags.contains("sha_ni") ? 2 : 1))
    }

    static var isX86: Bool {
        #if arch(x86_64)
            true
        #else
            false
        #endif
    }
}
