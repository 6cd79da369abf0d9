import Foundation

/// E2EE-1 handshake: X25519 then `sessionKey = HKDF(shared, empty salt, "inviso-session-v1", 32)`.
public enum InvisoHandshake {
    /// HKDF info for the session key.
    public static let info = Data("inviso-session-v1".utf8)

    /// The gateway's answer to a handshake.
    public struct Response: Sendable {
        /// The 32-byte session key (store sealed; never log).
        public let sessionKey: Data
        /// The gateway's ephemeral X25519 public key, to send back.
        public let gatewayPublicKey: Data
        /// Status string the gateway answers with.
        public let status = "key_exchange_complete"
    }

    /// The session key from a shared secret.
    public static func sessionKey(sharedSecret: some DataProtocol) throws(HallmarkCryptoError) -> Data {
        try HKDFSHA256.derive(ikm: sharedSecret, info: info, length: 32)
    }

    /// Gateway side: makes an ephemeral key pair (or uses `gatewayPrivateKey`, for tests) and
    /// derives the session key. Malformed or low-order client keys are rejected.
    public static func respond(
        clientPublicKey: some DataProtocol,
        gatewayPrivateKey: Data? = nil
    ) throws(HallmarkCryptoError) -> Response {
        let pair: X25519.KeyPair
        if let gatewayPrivateKey {
            pair = try X25519.keyPair(privateKey: gatewayPrivateKey)
        } else {
            pair = try X25519.generate()
        }
        let shared = try X25519.sharedSecret(privateKey: pair.privateKey, publicKey: clientPublicKey)
        return Response(sessionKey: try sessionKey(sharedSecret: shared), gatewayPublicKey: pair.publicKey)
    }

    /// Gateway side with the client key as base64 (as it arrives on the wire).
    public static func respond(clientPublicKeyBase64: String) throws(HallmarkCryptoError) -> Response {
        try respond(clientPublicKey: Base64.decode(clientPublicKeyBase64, length: X25519.keyLength))
    }

    /// Client side: the session key from the gateway's public key.
    public static func clientSessionKey(
        clientPrivateKey: some DataProtocol,
        gatewayPublicKey: some DataProtocol
    ) throws(HallmarkCryptoError) -> Data {
        try sessionKey(sharedSecret: X25519.sharedSecret(privateKey: clientPrivateKey, publicKey: gatewayPublicKey))
    }
}
