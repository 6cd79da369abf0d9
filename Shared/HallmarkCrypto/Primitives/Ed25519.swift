import Crypto
import Foundation

/// Ed25519 (RFC 8032) over swift-crypto, on raw keys.
public enum Ed25519 {
    /// A 32-byte seed with its public key.
    public struct KeyPair: Sendable {
        /// The 32-byte private seed (never log it).
        public let seed: Data
        /// The 32-byte public key.
        public let publicKey: Data
    }

    /// A fresh random key pair.
    public static func generate() throws(HallmarkCryptoError) -> KeyPair {
        try keyPair(seed: SecureRandom.bytes(32))
    }

    /// The key pair for a seed.
    public static func keyPair(seed: some DataProtocol) throws(HallmarkCryptoError) -> KeyPair {
        let key = try privateKey(seed)
        return KeyPair(seed: Data(seed), publicKey: key.publicKey.rawRepresentation)
    }

    /// The 64-byte signature of `message`. Ed25519 signing is deterministic.
    public static func sign(_ message: some DataProtocol, seed: some DataProtocol) throws(HallmarkCryptoError) -> Data {
        try SigningKey(seed: seed).sign(message)
    }

    /// A private key derived once from its seed, for a signer that signs many messages
    /// (deriving the public half costs a scalar multiplication each time).
    public struct SigningKey: Sendable {
        private let key: Curve25519.Signing.PrivateKey
        /// The 32-byte public key.
        public let publicKey: Data

        /// The key of a 32-byte seed; `invalid_key` otherwise.
        public init(seed: some DataProtocol) throws(HallmarkCryptoError) {
            key = try privateKey(seed)
            publicKey = key.publicKey.rawRepresentation
        }

        /// The 64-byte signature of `message`.
        public func sign(_ message: some DataProtocol) throws(HallmarkCryptoError) -> Data {
            try mapErrors(.invalidKey, "Ed25519 signing failed") { try key.signature(for: message) }
        }
    }

    /// True when `signature` is a valid signature of `message` by `publicKey`; false for any
    /// malformed key or signature.
    public static func verify(
        signature: some DataProtocol, message: some DataProtocol,
        publicKey: some DataProtocol
    ) -> Bool {
        guard publicKey.count == 32, signature.count == 64,
            let key = try? Curve25519.Signing.PublicKey(rawRepresentation: Data(publicKey))
        else { return false }
        return key.isValidSignature(signature, for: message)
    }

    fileprivate static func privateKey(_ seed: some DataProtocol) throws(HallmarkCryptoError) -> Curve25519.Signing.PrivateKey {
        guard seed.count == 32 else { throw HallmarkCryptoError(.invalidKey, "Ed25519 seed must be 32 bytes") }
        return try mapErrors(.invalidKey, "Ed25519 seed rejected") {
            try Curve25519.Signing.PrivateKey(rawRepresentation: Data(seed))
        }
    }
}
