import Foundation

extension SmileIDSignature {
    /// The signed header JSON: names lowercased (a collision after lowercasing is a
    /// `duplicateHeader` error, a name that is not an RFC 9110 token an `invalidHeaderName`
    /// one), only `smileid-` names except the unsigned ones, written by `JSONSerialization` with
    /// sorted keys and unescaped slashes (`{}` when none remain). Foundation's `.sortedKeys`
    /// order compares digit runs by value (`smileid-x9` before `smileid-x10`), as the iOS SDK's
    /// does on Apple platforms; tests pin it.
    public static func headersJSON(_ headers: [String: String]) throws(HallmarkCryptoError) -> Data {
        var kept: [String: String] = [:]
        var seen = Set<String>()
        for (name, value) in headers {
            guard isToken(name) else {
                throw HallmarkCryptoError(.invalidHeaderName, "a header name is not an RFC 9110 token")
            }
            let lower = name.lowercased()
            guard seen.insert(lower).inserted else {
                throw HallmarkCryptoError(.duplicateHeader, "header names collide after lowercasing")
            }
            if lower.hasPrefix("smileid-") && !unsignedHeaders.contains(lower) { kept[lower] = value }
        }
        return try canonicalJSON(kept)
    }

    /// Whether `name` is an RFC 9110 token: 1 or more of `!#$%&'*+-.^_`|~`, digits and letters.
    public static func isToken(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                    || "!#$%&'*+-.^_`|~".utf8.contains(c)
            }
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
        guard
            JSONSerialization.isValidJSONObject(object) || object is String || object is NSNumber
                || object is NSNull
        else {
            throw HallmarkCryptoError(.malformedJSON, "value cannot be written as JSON")
        }
        do {
            return try JSONSerialization.data(
                withJSONObject: object,
                options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        } catch {
            throw HallmarkCryptoError(.malformedJSON, "value cannot be written as JSON")
        }
    }
}
