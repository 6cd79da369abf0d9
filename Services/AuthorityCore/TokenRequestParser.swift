import Foundation
import HallmarkCrypto

/// Reads a `hallmark.token.request.v1` body strictly: exactly one token format, no field
/// outside the schema, and never an image hash (a request carrying one is `malformed`: the
/// authority must not see images).
public enum TokenRequestParser {
    /// Table ids above this are out of range (malformed) rather than unknown.
    public static let maxTableId = 1_000_000

    static let envelopeFields: Set<String> = ["schema", "id", "produced_at", "correlation_id", "reply_to"]
    static let referenceFields: Set<String> = ["camera_token"]
    static let mobileFields: Set<String> = ["encrypted_nuc_token", "table_references", "key_indices"]
    static let tokenFields: Set<String> = ["ciphertext", "auth_tag", "nonce", "table_id", "key_index"]

    /// The token, or nil when the request is malformed.
    public static func parse(_ bytes: [UInt8]) -> BirthmarkToken? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return nil }
        let keys = Set(object.keys)
        // Anything beyond the envelope and the token fields is refused, image hashes above all.
        guard keys.isSubset(of: envelopeFields.union(referenceFields).union(mobileFields)),
              !keys.contains(where: { $0.lowercased().contains("image") }) else { return nil }
        let hasReference = !keys.isDisjoint(with: referenceFields)
        let hasMobile = !keys.isDisjoint(with: mobileFields)
        guard hasReference != hasMobile else { return nil }
        // Typed decoding refuses booleans, fractions and strings where integers belong.
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(bytes)) else { return nil }
        if hasReference {
            guard let token = object["camera_token"] as? [String: Any], Set(token.keys) == tokenFields,
                  let parsed = body.cameraToken, (0...maxTableId).contains(parsed.tableId),
                  BirthmarkKeys.keyIndices.contains(parsed.keyIndex),
                  (try? parsed.sealedParts()) != nil else { return nil }
            return .reference(parsed)
        }
        guard let sealed = body.encryptedNucToken, let tableIds = body.tableReferences,
              let keyIndices = body.keyIndices, tableIds.count == 3, keyIndices.count == 3,
              tableIds.allSatisfy({ (0...maxTableId).contains($0) }),
              keyIndices.allSatisfy({ BirthmarkKeys.keyIndices.contains($0) }) else { return nil }
        let parsed = BirthmarkMobileToken(encryptedNucToken: sealed, tableReferences: tableIds, keyIndices: keyIndices)
        guard (try? parsed.sealedParts()) != nil else { return nil }
        return .mobile(parsed)
    }

    struct Body: Decodable {
        var cameraToken: BirthmarkCameraToken?
        var encryptedNucToken: String?
        var tableReferences: [Int]?
        var keyIndices: [Int]?
        enum CodingKeys: String, CodingKey {
            case cameraToken = "camera_token"
            case encryptedNucToken = "encrypted_nuc_token"
            case tableReferences = "table_references"
            case keyIndices = "key_indices"
        }
    }

    /// The replay key of a token: a hash of its nonce and ciphertext (tag excluded: GCM tags
    /// are bound to both, and a token with a changed tag fails authentication anyway).
    public static func replayKey(_ token: BirthmarkToken) -> Data? {
        let parts: AESGCM256.Sealed?
        switch token {
        case .reference(let t): parts = try? t.sealedParts()
        case .mobile(let t): parts = try? t.sealedParts()
        }
        guard let parts else { return nil }
        return SHA256Hash.digest(Data("hallmark-replay-v1".utf8) + parts.nonce + parts.ciphertext)
    }
}
