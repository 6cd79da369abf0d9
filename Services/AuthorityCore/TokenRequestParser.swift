import Foundation
import HallmarkCrypto

/// Reads a `hallmark.token.request.v1` body strictly, in one JSON pass: exactly one token
/// format, no field outside the schema, and never an image hash (a request carrying one is
/// `malformed`: the authority must not see images).
public enum TokenRequestParser {
    /// Table ids above this are out of range (malformed) rather than unknown.
    public static let maxTableId = 1_000_000

    static let envelopeFields: Set<String> = ["schema", "id", "produced_at", "correlation_id", "reply_to"]
    static let referenceFields: Set<String> = ["camera_token"]
    static let mobileFields: Set<String> = ["encrypted_nuc_token", "table_references", "key_indices"]
    static let tokenFields: Set<String> = ["ciphertext", "auth_tag", "nonce", "table_id", "key_index"]
    static let allowed = envelopeFields.union(referenceFields).union(mobileFields)

    /// A parsed token with its decoded binary parts.
    public struct Parsed: Sendable {
        /// The token.
        public let token: BirthmarkToken
        /// Nonce, ciphertext and tag, decoded once.
        public let parts: AESGCM256.Sealed

        /// The replay key: a hash of nonce and ciphertext (tag excluded: GCM tags are bound to
        /// both, and a token with a changed tag fails authentication anyway).
        public var replayKey: Data {
            SHA256Hash.digest(Data("hallmark-replay-v1".utf8) + parts.nonce + parts.ciphertext)
        }
    }

    /// The token, or nil when the request is malformed.
    public static func parse(_ bytes: [UInt8]) -> BirthmarkToken? { parseWithParts(bytes)?.token }

    /// The token and its parts, or nil when the request is malformed.
    public static func parseWithParts(_ bytes: [UInt8]) -> Parsed? {
        // Typed decoding refuses booleans, fractions and strings where integers belong.
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(bytes)),
              body.keys.isSubset(of: allowed),
              !body.keys.contains(where: { $0.lowercased().contains("image") }) else { return nil }
        let hasReference = !body.keys.isDisjoint(with: referenceFields)
        let hasMobile = !body.keys.isDisjoint(with: mobileFields)
        guard hasReference != hasMobile else { return nil }
        if hasReference {
            guard let strict = body.cameraToken, strict.keys == tokenFields else { return nil }
            let token = strict.token
            guard (0...maxTableId).contains(token.tableId), BirthmarkKeys.keyIndices.contains(token.keyIndex),
                  let parts = try? token.sealedParts() else { return nil }
            return Parsed(token: .reference(token), parts: parts)
        }
        guard let sealed = body.encryptedNucToken, let tableIds = body.tableReferences,
              let keyIndices = body.keyIndices, tableIds.count == 3, keyIndices.count == 3,
              tableIds.allSatisfy({ (0...maxTableId).contains($0) }),
              keyIndices.allSatisfy({ BirthmarkKeys.keyIndices.contains($0) }) else { return nil }
        let token = BirthmarkMobileToken(encryptedNucToken: sealed, tableReferences: tableIds, keyIndices: keyIndices)
        guard let parts = try? token.sealedParts() else { return nil }
        return Parsed(token: .mobile(token), parts: parts)
    }

    /// The replay key of a token (see ``Parsed/replayKey``).
    public static func replayKey(_ token: BirthmarkToken) -> Data? {
        let parts: AESGCM256.Sealed?
        switch token {
        case .reference(let t): parts = try? t.sealedParts()
        case .mobile(let t): parts = try? t.sealedParts()
        }
        return parts.map { Parsed(token: token, parts: $0).replayKey }
    }

    struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The request body, remembering which keys it had.
    struct Body: Decodable {
        var keys: Set<String>
        var cameraToken: StrictCameraToken?
        var encryptedNucToken: String?
        var tableReferences: [Int]?
        var keyIndices: [Int]?

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: AnyKey.self)
            keys = Set(c.allKeys.map(\.stringValue))
            cameraToken = try c.decodeIfPresent(StrictCameraToken.self, forKey: AnyKey(stringValue: "camera_token"))
            encryptedNucToken = try c.decodeIfPresent(String.self, forKey: AnyKey(stringValue: "encrypted_nuc_token"))
            tableReferences = try c.decodeIfPresent([Int].self, forKey: AnyKey(stringValue: "table_references"))
            keyIndices = try c.decodeIfPresent([Int].self, forKey: AnyKey(stringValue: "key_indices"))
        }
    }

    /// A reference token with the keys it had.
    struct StrictCameraToken: Decodable {
        var keys: Set<String>
        var token: BirthmarkCameraToken

        init(from decoder: any Decoder) throws {
            keys = Set(try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue))
            token = try BirthmarkCameraToken(from: decoder)
        }
    }
}
