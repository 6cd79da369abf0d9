import Foundation

/// An E2EE-1 session: message keys and sealing/opening of wire messages.
///
/// `messageKey = HKDF(sessionKey, empty salt, "inviso-msg-v1" ‖ [direction] ‖ u64be(counter), 32)`.
public struct InvisoSession: Sendable {
    /// HKDF info prefix for message keys.
    public static let messageInfo = Data("inviso-msg-v1".utf8)

    /// The 32-byte session key.
    public let sessionKey: Data

    /// Wraps a session key; `invalidKey` unless it is 32 bytes.
    public init(sessionKey: Data) throws(HallmarkCryptoError) {
        guard sessionKey.count == 32 else { throw HallmarkCryptoError(.invalidKey, "session key must be 32 bytes") }
        self.sessionKey = sessionKey
    }

    /// The key for one message.
    public func messageKey(direction: InvisoDirection, counter: UInt64) throws(HallmarkCryptoError) -> Data {
        var info = Self.messageInfo
        info.append(direction.rawValue)
        withUnsafeBytes(of: counter.bigEndian) { info.append(contentsOf: $0) }
        return try HKDFSHA256.derive(ikm: sessionKey, info: info, length: 32)
    }

    /// Seals a message with a fresh random nonce (or `nonce`, for tests).
    public func seal(
        _ plaintext: Data, direction: InvisoDirection, counter: UInt64,
        nonce: Data? = nil
    ) throws(HallmarkCryptoError) -> InvisoWireMessage {
        guard counter <= InvisoWireMessage.maximumCounter else {
            throw HallmarkCryptoError(.invalidArgument, "E2EE-1 counter out of range")
        }
        let sealed = try AESGCM256.seal(plaintext, key: messageKey(direction: direction, counter: counter), nonce: nonce)
        return InvisoWireMessage(
            counter: counter, nonce: Base64.encode(sealed.nonce),
            ciphertext: Base64.encode(sealed.ciphertext), tag: Base64.encode(sealed.tag))
    }

    /// Opens a message. The counter rule (`InvisoCounterRule`) is the caller's, checked
    /// atomically with its stored state; this only authenticates and decrypts.
    public func open(_ message: InvisoWireMessage, direction: InvisoDirection) throws(HallmarkCryptoError) -> Data {
        guard message.version == 1 else { throw HallmarkCryptoError(.unsupportedVersion, "E2EE-1 version must be 1") }
        guard message.counter <= InvisoWireMessage.maximumCounter else {
            throw HallmarkCryptoError(.malformedJSON, "E2EE-1 counter out of range")
        }
        let sealed = AESGCM256.Sealed(
            nonce: try Base64.decode(message.nonce, length: AESGCM256.nonceLength),
            ciphertext: try Base64.decode(message.ciphertext),
            tag: try Base64.decode(message.tag, length: AESGCM256.tagLength))
        return try AESGCM256.open(sealed, key: messageKey(direction: direction, counter: message.counter))
    }
}
