import Foundation
import HallmarkCore
import HallmarkCrypto

/// The bytes an operator's Ed25519 signature covers, and the bytes an audit record's hash
/// covers: the message's canonical JSON (JSONCoding: sorted keys, no whitespace, `/`
/// unescaped) without the members named, so every other member is bound.
enum CanonicalSigning {
    static func bytes<T: Encodable>(of message: T, without excluded: Set<String>) throws(JSONCodingError) -> [UInt8] {
        let encoded = try JSONCoding.encode(message)
        // JSONCoding's own output always parses back.
        guard case .object(var members) = try? JSONReader.parse(encoded) else {
            throw JSONCodingError(path: "(root)", reason: "not an object")
        }
        for name in excluded { members[name] = nil }
        return JSONWriter.write(.object(members))
    }
}
