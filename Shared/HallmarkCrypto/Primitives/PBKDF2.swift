import Foundation

/// PBKDF2-HMAC-SHA256 (RFC 8018). The default `.fast` backend runs the iterations on
/// precomputed HMAC states with SHA-NI when the CPU has it, and `deriveBatch` interleaves
/// independent derivations — use it whenever several keys are needed at once (several
/// secret versions, several multipart fields).
public enum PBKDF2 {
    /// The implementation to run. All give identical bytes.
    public enum Backend: String, Sendable, CaseIterable {
        /// Precomputed HMAC states; SHA-NI when available, else portable C.
        case fast
        /// The fast loop forced onto portable C (no SHA-NI).
        case portable
        /// OpenSSL's `PKCS5_PBKDF2_HMAC`.
        case openSSL
        /// swift-crypto's `KDF.Insecure.PBKDF2`.
        case swiftCrypto
    }

    /// One derivation.
    public struct Request: Sendable, Hashable {
        /// The password bytes.
        public var password: Data
        /// The salt bytes.
        public var salt: Data
        /// Iteration count, at least 1.
        public var iterations: Int
        /// Output length in bytes, at least 1.
        public var keyLength: Int

        /// Creates a request.
        public init(password: some DataProtocol, salt: some DataProtocol, iterations: Int, keyLength: Int = 32) {
            self.password = Data(password)
            self.salt = Data(salt)
            self.iterations = iterations
            self.keyLength = keyLength
        }
    }

    /// Whether this CPU runs the SHA-NI kernel.
    public static var hasSHAExtensions: Bool { NativePBKDF2.hasSHAExtensions }

    /// How many derivations one `deriveBatch` call should carry on this CPU: 2 where the
    /// SHA-NI kernel interleaves a pair for little more than the cost of one, else 1 (the
    /// portable loop runs a batch one after another, so a pair doubles the first key's wait
    /// and leaves another core idle).
    public static var preferredBatch: Int { hasSHAExtensions ? 2 : 1 }

    /// Derives one key.
    public static func deriveSHA256(
        password: some DataProtocol, salt: some DataProtocol, iterations: Int,
        keyLength: Int = 32, backend: Backend = .fast
    ) throws(HallmarkCryptoError) -> Data {
        try deriveBatch(
            [Request(password: password, salt: salt, iterations: iterations, keyLength: keyLength)],
            backend: backend)[0]
    }

    /// Derives several keys; results are in request order. On the fast backend the
    /// derivations run pairwise interleaved, so two keys cost little more than one.
    public static func deriveBatch(_ requests: [Request], backend: Backend = .fast) throws(HallmarkCryptoError) -> [Data] {
        for r in requests {
            guard r.iterations >= 1, r.iterations <= Int(UInt32.max) else {
                throw HallmarkCryptoError(.invalidArgument, "PBKDF2 iterations must be 1...\(UInt32.max)")
            }
            guard r.keyLength >= 1, r.keyLength <= 1 << 20 else {
                throw HallmarkCryptoError(.invalidArgument, "PBKDF2 key length must be 1...\(1 << 20)")
            }
        }
        switch backend {
        case .fast: return try NativePBKDF2.fast(requests, portable: false)
        case .portable: return try NativePBKDF2.fast(requests, portable: true)
        case .openSSL: return try requests.map { (r) throws(HallmarkCryptoError) in try NativePBKDF2.openSSL(r) }
        case .swiftCrypto: return try requests.map { (r) throws(HallmarkCryptoError) in try swiftCrypto(r) }
        }
    }
}
