import Foundation

/// SIGN-1: the SmileID request MAC (DESIGN §1).
///
/// `data = headersJSON ‖ payload`, `salt = utf8(String(data.count) + timestamp)`,
/// `key = PBKDF2-HMAC-SHA256(secret, salt, 200_000, 32)`, `mac = b64(HMAC-SHA256(key, data))`.
public enum SmileIDSignature {
    /// PBKDF2 iterations fixed by the protocol.
    public static let iterations = 200_000
    /// Headers that are added after signing and so never signed.
    public static let unsignedHeaders: Set<String> = ["smileid-request-mac", "smileid-device-nonce"]

    /// Which secret version matched, and whether the canonical re-encoding of the body was needed.
    public struct Verification: Sendable, Hashable {
        /// Index into the `secrets` list that reproduced the MAC.
        public let secretIndex: Int
        /// True when the raw body failed and its canonical JSON re-encoding matched.
        public let usedCanonicalBody: Bool
    }

    /// The bytes that are signed: the filtered headers' JSON (when headers are given)
    /// followed by the payload.
    public static func signingData(headers: [String: String]?, payload: Data?) throws(HallmarkCryptoError) -> Data {
        var data = Data()
        if let headers { data.append(try headersJSON(headers)) }
        if let payload { data.append(payload) }
        return data
    }

    /// The PBKDF2 salt for `data`: decimal byte count then the timestamp.
    public static func salt(dataCount: Int, timestamp: String) -> Data {
        Data((String(dataCount) + timestamp).utf8)
    }

    /// The 32-byte HMAC key for given signing data.
    public static func key(secret: String, timestamp: String, dataCount: Int) throws(HallmarkCryptoError) -> Data {
        try PBKDF2.deriveSHA256(
            password: Data(secret.utf8), salt: salt(dataCount: dataCount, timestamp: timestamp),
            iterations: iterations)
    }

    /// The MAC (base64, 44 characters) for a request.
    public static func sign(
        secret: String, timestamp: String, headers: [String: String]? = nil,
        payload: Data? = nil
    ) throws(HallmarkCryptoError) -> String {
        try sign(secret: secret, timestamp: timestamp, data: signingData(headers: headers, payload: payload))
    }

    /// The MAC (base64) of already-assembled signing data.
    public static func sign(secret: String, timestamp: String, data: Data) throws(HallmarkCryptoError) -> String {
        let key = try key(secret: secret, timestamp: timestamp, dataCount: data.count)
        return Base64.encode(HMACSHA256.mac(key: key, data: data))
    }
}
