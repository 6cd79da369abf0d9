import Foundation
import HallmarkCore
import HallmarkCrypto

/// The bytes an operator's Ed25519 signature covers (``OperatorSignature``), and the bytes an
/// audit record's hash covers: the message's canonical JSON (JSONCoding: sorted keys, no
/// whitespace, `/` unescaped) without the members named, so every other member is bound.
enum CanonicalSigning {
    static func bytes<T: Encodable>(of message: T, without excluded: Set<String>) throws(JSONCodingError) -> [UInt8] {
        let encoded = try JSONCoding.encode(message)
        // JSONCoding's own output always parses back.
        guard case .object(let members) = try? JSONReader.parse(encoded) else {
            throw JSONCodingError(path: "(root)", reason: "not an object")
        }
        return bytes(of: members, without: excluded)
    }

    /// The same bytes for a message already read into its top-level `members`.
    static func bytes(of members: [String: JSONValue], without excluded: Set<String>) -> [UInt8] {
        var members = members
        for name in excluded { members[name] = nil }
        return JSONWriter.write(.object(members))
    }
}
