import Crypto
import Foundation

/// X25519 (RFC 7748) over swift-crypto, on raw 32-byte keys.
public enum X25519 {
    /// Key and shared-secret size in bytes.
    public static let keyLength = 32

    /// A private key with its public key, as raw bytes.
    public struct KeyPair: Sendable {
        /// The 32-byte private scalar (never log it).
        public let privateKey: Data
        /// The 32-byte public u-coordinate.
        public let publicKey: Data
    }

    /// A fresh random key pair.
    public static func generate() throws(HallmarkCryptoError) -> KeyPair {
        try keyPair(privateKey: SecureRandom.bytes(keyLength))
    }

    /// The key pair for a given private key.
    public static func keyPair(privateKey: some DataProtocol) throws(HallmarkCryptoError) -> KeyPair {
        let key = try parsePrivate(privateKey)
        return KeyPair(privateKey: Data(privateKey), publicKey: key.publicKey.rawRepresentation)
    }

    /// X25519(privateKey, publicKey). Throws `invalidKey` on wrong lengths and
    /// `weakSharedSecret` when the result is all zeros (a low-order public key).
    public static func sharedSecret(
        privateKey: some DataProtocol,
        publicKey: some DataProtocol
    ) throws(HallmarkCryptoError) -> Data {
        let priv = try parsePrivate(privateKey)
        guard publicKey.count == keyLength else {
            throw HallmarkCryptoError(.invalidKey, "X25519 public key must be 32 bytes")
        }
        let pub = try mapErrors(.invalidKey, "X25519 public key rejected") {
            try Curve25519.KeyAgreement.PublicKey(rawRepresentation: Data(publicKey))
        }
        // BoringSSL refuses an all-zero output itself; check again so no backend can let it through.
        let shared = try mapErrors(.weakSharedSecret, "X25519 shared secret is all zeros") {
            try priv.sharedSecretFromKeyAgreement(with: pub).withUnsafeBytes { Data($0) }
        }
        guard shared.contains(where: { $0 != 0 }) else {
            throw HallmarkCryptoError(.weakSharedSecret, "X25519 shared secret is all zeros")
        }
        return shared
    }

    private static func parsePrivate(
        _ bytes: some DataProtocol
    ) throws(HallmarkCryptoError)
        -> Curve25519.KeyAgreement.PrivateKey
    {
        guard bytes.count == keyLength else {
            throw HallmarkCryptoError(.invalidKey, "X25519 private key must be 32 bytes")
        }
        return try mapErrors(.invalidKey, "X25519 private key rejected") {
            try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: Data(bytes))
        }
    }
}
