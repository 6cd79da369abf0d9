import Foundation
import HallmarkCore

/// The zip's `security_info.json`: `{"mac": …, "timestamp": …}` in any key order.
public struct SmileIDSecurityInfo: Codable, Sendable, Hashable {
    /// The SIGN-FILES MAC, base64.
    public var mac: String
    /// The signing timestamp.
    public var timestamp: String

    /// Creates the record.
    public init(mac: String, timestamp: String) {
        self.mac = mac
        self.timestamp = timestamp
    }

    /// Parses the file; `malformedJSON` if it is not an object with both string fields.
    public static func parse(_ data: Data) throws(HallmarkCryptoError) -> SmileIDSecurityInfo {
        try JSONCoding.decode(SmileIDSecurityInfo.self, from: data, what: "security_info.json")
    }

    /// Compact JSON with sorted keys.
    public func jsonData() throws(HallmarkCryptoError) -> Data { try JSONCoding.encodeData(self, what: "security_info.json") }
}
