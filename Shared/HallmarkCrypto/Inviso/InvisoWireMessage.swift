import Foundation
import HallmarkCore

/// An E2EE-1 wire message: `{"version":1,"counter":n,"nonce":b64(12),"ciphertext":b64,"tag":b64(16)}`.
public struct InvisoWireMessage: Codable, Sendable, Hashable {
    /// Always 1.
    public var version: Int
    /// Per-direction message counter, 0...Int64.max (PostgreSQL bigint).
    public var counter: UInt64
    /// 12-byte nonce, base64.
    public var nonce: String
    /// Ciphertext, base64.
    public var ciphertext: String
    /// 16-byte GCM tag, base64.
    public var tag: String

    /// Creates a message.
    public init(version: Int = 1, counter: UInt64, nonce: String, ciphertext: String, tag: String) {
        self.version = version
        self.counter = counter
        self.nonce = nonce
        self.ciphertext = ciphertext
        self.tag = tag
    }

    /// Largest counter accepted, so it fits a PostgreSQL bigint.
    public static let maximumCounter = UInt64(Int64.max)

    /// Parses a wire message; `malformedJSON` for bad JSON, negative, fractional or
    /// out-of-range counters; `unsupportedVersion` for a version other than 1.
    public static func parse(_ data: some DataProtocol) throws(HallmarkCryptoError) -> InvisoWireMessage {
        let message = try JSONCoding.decode(InvisoWireMessage.self, from: data, what: "E2EE-1 message")
        guard message.version == 1 else { throw HallmarkCryptoError(.unsupportedVersion, "E2EE-1 version must be 1") }
        guard message.counter <= maximumCounter else {
            throw HallmarkCryptoError(.malformedJSON, "E2EE-1 counter out of range")
        }
        return message
    }

    /// Compact JSON with sorted keys.
    public func jsonData() throws(HallmarkCryptoError) -> Data { try JSONCoding.encodeData(self, what: "E2EE-1 message") }
}
