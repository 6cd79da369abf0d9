import Foundation

extension SmileIDSignature {
    /// The signed header JSON: names lowercased (a collision after lowercasing is a
    /// `duplicateHeader` error), only `smileid-` names except the unsigned ones, written by
    /// `JSONSerialization` with sorted keys and unescaped slashes (`{}` when none remain).
    public static func headersJSON(_ headers: [String: String]) throws(HallmarkCryptoError) -> Data {
        var kept: [String: String] = [:]
        var seen = Set<String>()
        for (name, value) in headers {
            let lower = name.lowercased()
            guard seen.insert(lower).inserted else {
                throw HallmarkCryptoError(.duplicateHeader, "header names collide after lowercasing")
            }
            if lower.hasPrefix("smileid-") && !unsignedHeaders.contains(lower) { kept[lower] = value }
        }
        return try canonicalJSON(kept)
    }

    /// The canonical re-encoding of a JSON body, or nil when the body is not JSON.
    public static func canonicalBody(_ body: Data) -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            return nil
        }
        return try? canonicalJSON(object)
    }

    /// Foundation's `JSONSerialization` with `[.sortedKeys, .withoutEscapingSlashes]`, the
    /// encoding the iOS SDK signs.
    static func canonicalJSON(_ object: Any) throws(HallmarkCryptoError) -> Data {
        guard JSONSerialization.isValidJSONObject(object) || object is String || object is NSNumber
                || object is NSNull else {
            throw HallmarkCryptoError(.malformedJSON, "value cannot be written as JSON")
        }
        do {
            return try JSONSerialization.data(withJSONObject: object,
                                              options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        } catch {
            throw HallmarkCryptoError(.malformedJSON, "value cannot be written as JSON")
        }
    }
}
