import Foundation
import HallmarkCrypto

/// One JSON object read by a `hallmark crypto` command, with typed accessors whose failures
/// become `{"error": code, "message": …}`.
struct CryptoToolInput {
    private let object: [String: Any]

    init(_ data: Data) throws(CryptoToolError) {
        guard let parsed = try? JSONSerialization.jsonObject(with: data),
            let object = parsed as? [String: Any]
        else {
            throw CryptoToolError("malformed_json", "input must be one JSON object")
        }
        self.object = object
    }

    func has(_ key: String) -> Bool { object[key] != nil && !(object[key] is NSNull) }

    func string(_ key: String) throws(CryptoToolError) -> String {
        guard let value = try optionalString(key) else { throw CryptoToolError.missing(key) }
        return value
    }

    func optionalString(_ key: String) throws(CryptoToolError) -> String? {
        guard has(key) else { return nil }
        guard let value = object[key] as? String else { throw CryptoToolError.wrongType(key, "a string") }
        return value
    }

    func int(_ key: String) throws(CryptoToolError) -> Int {
        guard let value = try optionalInt(key) else { throw CryptoToolError.missing(key) }
        return value
    }

    func optionalInt(_ key: String) throws(CryptoToolError) -> Int? {
        guard has(key) else { return nil }
        // Booleans also bridge to NSNumber; their Objective-C type is char ("c") or "B".
        guard let number = object[key] as? NSNumber, !["c", "B"].contains(String(cString: number.objCType)),
            let value = Int(exactly: number.doubleValue), Double(value) == number.doubleValue
        else {
            throw CryptoToolError.wrongType(key, "an integer")
        }
        return value
    }

    func stringArray(_ key: String) throws(CryptoToolError) -> [String] {
        guard has(key) else { throw CryptoToolError.missing(key) }
        guard let value = object[key] as? [String] else { throw CryptoToolError.wrongType(key, "an array of strings") }
        return value
    }

    func stringMap(_ key: String) throws(CryptoToolError) -> [String: String]? {
        guard has(key) else { return nil }
        guard let value = object[key] as? [String: String] else {
            throw CryptoToolError.wrongType(key, "an object of strings")
        }
        return value
    }

    func objects(_ key: String) throws(CryptoToolError) -> [CryptoToolInput] {
        guard has(key) else { throw CryptoToolError.missing(key) }
        guard let value = object[key] as? [[String: Any]] else { throw CryptoToolError.wrongType(key, "an array of objects") }
        return value.map { CryptoToolInput(object: $0) }
    }

    /// A nested object re-serialized, for the library's own parsers.
    func objectData(_ key: String) throws(CryptoToolError) -> Data {
        guard has(key) else { throw CryptoToolError.missing(key) }
        guard let value = object[key] as? [String: Any],
            let data = try? JSONSerialization.data(withJSONObject: value)
        else {
            throw CryptoToolError.wrongType(key, "an object")
        }
        return data
    }

    /// The whole input re-serialized.
    func wholeData() -> Data { (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8) }

    func base64(_ key: String) throws(CryptoToolError) -> Data {
        let text = try string(key)
        return try CryptoToolError.wrap { try Base64.decode(text) }
    }

    func optionalBase64(_ key: String) throws(CryptoToolError) -> Data? {
        guard has(key) else { return nil }
        return try base64(key)
    }

    func hex(_ key: String) throws(CryptoToolError) -> Data {
        let text = try string(key)
        return try CryptoToolError.wrap { try Hex.decode(text) }
    }

    private init(object: [String: Any]) { self.object = object }
}
