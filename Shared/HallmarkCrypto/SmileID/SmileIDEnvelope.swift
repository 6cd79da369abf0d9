import Foundation
import HallmarkCore

/// ENC-1 envelope, version 1.0: the JSON object that replaces an encrypted payload.
public struct SmileIDEnvelope: Codable, Sendable, Hashable {
    /// The only version this module writes and reads.
    public static let currentVersion = "1.0"
    /// The only algorithm name.
    public static let algorithmName = "AES-256-GCM"

    /// `"1.0"`.
    public var version: String
    /// `"AES-256-GCM"`.
    public var algorithm: String
    /// 12-byte IV, base64.
    public var iv: String
    /// 16-byte GCM tag, base64.
    public var authTag: String
    /// Ciphertext, base64.
    public var encryptedData: String
    /// The timestamp that salted the key.
    public var timestamp: String

    enum CodingKeys: String, CodingKey {
        case version, algorithm, iv, timestamp
        case authTag = "auth_tag"
        case encryptedData = "encrypted_data"
    }

    /// Creates an envelope from its fields.
    public init(
        version: String = currentVersion, algorithm: String = algorithmName, iv: String,
        authTag: String, encryptedData: String, timestamp: String
    ) {
        self.version = version
        self.algorithm = algorithm
        self.iv = iv
        self.authTag = authTag
        self.encryptedData = encryptedData
        self.timestamp = timestamp
    }

    /// Parses envelope JSON (`malformedJSON` on any structural problem).
    public static func parse(_ data: some DataProtocol) throws(HallmarkCryptoError) -> SmileIDEnvelope {
        try JSONCoding.decode(SmileIDEnvelope.self, from: data, what: "ENC-1 envelope")
    }

    /// Compact UTF-8 JSON with sorted keys and unescaped slashes.
    public func jsonData() throws(HallmarkCryptoError) -> Data { try JSONCoding.encodeData(self, what: "ENC-1 envelope") }
}
