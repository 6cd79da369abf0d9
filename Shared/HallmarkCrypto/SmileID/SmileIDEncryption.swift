import Foundation

/// ENC-1: SmileID payload encryption (DESIGN §1).
///
/// `master = PBKDF2-HMAC-SHA256(secret, timestamp + ":" + requestId, 200_000, 32)`;
/// `okm = HKDF-Expand(master, "SmileID-Encryption-v1", 64)`; `encKey = okm[0..<32]`,
/// `macKey = okm[32..<64]` (reserved); AES-256-GCM with a random 12-byte IV.
public enum SmileIDEncryption {
    /// HKDF info string.
    public static let info = Data("SmileID-Encryption-v1".utf8)

    /// The two derived keys.
    public struct Keys: Sendable, Hashable {
        /// AES-256-GCM key.
        public let encKey: Data
        /// Reserved MAC key (GCM already authenticates).
        public let macKey: Data
    }

    /// One key derivation's inputs.
    public struct KeyContext: Sendable, Hashable {
        /// Request timestamp.
        public var timestamp: String
        /// Request id (for multipart fields `<requestId>:<field>`).
        public var requestId: String

        /// Creates a context.
        public init(timestamp: String, requestId: String) {
            self.timestamp = timestamp
            self.requestId = requestId
        }
    }

    /// Derives the keys for one request.
    public static func keys(secret: String, timestamp: String, requestId: String) throws(HallmarkCryptoError) -> Keys {
        try keys(secret: secret, contexts: [KeyContext(timestamp: timestamp, requestId: requestId)])[0]
    }

    /// Derives keys for several requests with one batched PBKDF2 call.
    public static func keys(secret: String, contexts: [KeyContext]) throws(HallmarkCryptoError) -> [Keys] {
        let masters = try PBKDF2.deriveBatch(
            contexts.map {
                PBKDF2.Request(
                    password: Data(secret.utf8), salt: Data(($0.timestamp + ":" + $0.requestId).utf8),
                    iterations: SmileIDSignature.iterations)
            })
        return try masters.map { (master) throws(HallmarkCryptoError) in try keys(master: master) }
    }

    /// The keys from an already derived PBKDF2 master (step 2), e.g. one a worker pool derived
    /// as `PBKDF2(secret, timestamp + ":" + requestId)`.
    public static func keys(master: Data) throws(HallmarkCryptoError) -> Keys {
        let okm = try HKDFSHA256.expand(prk: master, info: info, length: 64)
        return Keys(encKey: okm.prefix(32), macKey: okm.suffix(32))
    }

    /// The PBKDF2 salt of one request: `utf8(timestamp + ":" + requestId)`.
    public static func salt(timestamp: String, requestId: String) -> Data { Data((timestamp + ":" + requestId).utf8) }

    /// Encrypts `plaintext` into an envelope. `iv` is random unless given (tests only).
    public static func encrypt(
        _ plaintext: Data, secret: String, timestamp: String, requestId: String,
        iv: Data? = nil
    ) throws(HallmarkCryptoError) -> SmileIDEnvelope {
        try encrypt(
            plaintext, keys: keys(secret: secret, timestamp: timestamp, requestId: requestId),
            timestamp: timestamp, iv: iv)
    }

    /// Encrypts with already derived keys.
    public static func encrypt(
        _ plaintext: Data, keys: Keys, timestamp: String,
        iv: Data? = nil
    ) throws(HallmarkCryptoError) -> SmileIDEnvelope {
        let sealed = try AESGCM256.seal(plaintext, key: keys.encKey, nonce: iv)
        return SmileIDEnvelope(
            iv: Base64.encode(sealed.nonce), authTag: Base64.encode(sealed.tag),
            encryptedData: Base64.encode(sealed.ciphertext), timestamp: timestamp)
    }

    /// Decrypts an envelope (the key is salted by the envelope's own timestamp).
    public static func decrypt(
        _ envelope: SmileIDEnvelope, secret: String,
        requestId: String
    ) throws(HallmarkCryptoError) -> Data {
        try checkHeader(envelope)
        let keys = try keys(secret: secret, timestamp: envelope.timestamp, requestId: requestId)
        return try decrypt(envelope, keys: keys)
    }

    /// Decrypts with already derived keys.
    public static func decrypt(_ envelope: SmileIDEnvelope, keys: Keys) throws(HallmarkCryptoError) -> Data {
        try checkHeader(envelope)
        let sealed = AESGCM256.Sealed(
            nonce: try Base64.decode(envelope.iv, length: AESGCM256.nonceLength),
            ciphertext: try Base64.decode(envelope.encryptedData),
            tag: try Base64.decode(envelope.authTag, length: AESGCM256.tagLength))
        return try AESGCM256.open(sealed, key: keys.encKey)
    }

    static func checkHeader(_ envelope: SmileIDEnvelope) throws(HallmarkCryptoError) {
        guard envelope.version == SmileIDEnvelope.currentVersion,
            envelope.algorithm == SmileIDEnvelope.algorithmName
        else {
            throw HallmarkCryptoError(.unsupportedVersion, "envelope must be version 1.0 with AES-256-GCM")
        }
    }
}
