import Foundation
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages

/// Reads a `hallmark.token.request.v1` body strictly, in one JSON pass: exactly one token
/// format, no field outside the schema, and never an image hash (a request carrying one is
/// `malformed`: the authority must not see images).
package enum TokenRequestParser {
    /// Table ids above this are out of range (malformed) rather than unknown.
    package static let maxTableId = 1_000_000

    static let envelopeFields: Set<String> = ["schema", "id", "produced_at", "correlation_id", "reply_to"]
    static let referenceFields: Set<String> = ["camera_token"]
    static let mobileFields: Set<String> = ["encrypted_nuc_token", "table_references", "key_indices"]
    static let tokenFields: Set<String> = ["ciphertext", "auth_tag", "nonce", "table_id", "key_index"]
    static let allowed = envelopeFields.union(referenceFields).union(mobileFields)
    // (A name containing "image" must never be added here: see parseWithParts.)

    /// A parsed token with its decoded binary parts.
    package struct Parsed: Sendable {
        /// The token.
        package let token: BirthmarkToken
        /// Nonce, ciphertext and tag, decoded once.
        package let parts: AESGCM256.Sealed

        /// The replay key: a hash of nonce and ciphertext (tag excluded: GCM tags are bound to
        /// both, and a token with a changed tag fails authentication anyway).
        package var replayKey: Data {
            SHA256Hash.digest(Data("hallmark-replay-v1".utf8) + parts.nonce + parts.ciphertext)
        }
    }

    /// The token, or nil when the request is malformed.
    package static func parse(_ bytes: [UInt8]) -> BirthmarkToken? { parseWithParts(bytes)?.token }

    /// The token and its parts, or nil when the request is malformed.
    package static func parseWithParts(_ bytes: [UInt8]) -> Parsed? {
        guard let fields = (try? JSONReader.parse(bytes))?.object else { return nil }
        return parseWithParts(fields: fields)
    }

    /// The same, from the request's top-level members (as the stage has already read them).
    /// Integers must be written as integers: booleans, fractions and strings are refused.
    package static func parseWithParts(fields body: [String: JSONValue]) -> Parsed? {
        let keys = Set(body.keys)
        // No allowed name mentions an image, so an image hash in any spelling is refused here.
        guard keys.isSubset(of: allowed) else { return nil }
        let hasReference = !keys.isDisjoint(with: referenceFields)
        let hasMobile = !keys.isDisjoint(with: mobileFields)
        guard hasReference != hasMobile else { return nil }
        if hasReference {
            guard let t = body["camera_token"]?.object, Set(t.keys) == tokenFields,
                let ciphertext = t["ciphertext"]?.string, let tag = t["auth_tag"]?.string,
                let nonce = t["nonce"]?.string, let tableId = t["table_id"]?.integer,
                let keyIndex = t["key_index"]?.integer
            else { return nil }
            let token = BirthmarkCameraToken(
                ciphertext: ciphertext, authTag: tag, nonce: nonce, tableId: tableId,
                keyIndex: keyIndex)
            guard (0...maxTableId).contains(tableId), BirthmarkKeys.keyIndices.contains(keyIndex),
                let parts = try? token.sealedParts()
            else { return nil }
            return Parsed(token: .reference(token), parts: parts)
        }
        guard let sealed = body["encrypted_nuc_token"]?.string, let tableIds = integers(body["table_references"]),
            let keyIndices = integers(body["key_indices"]), tableIds.count == 3, keyIndices.count == 3,
            tableIds.allSatisfy({ (0...maxTableId).contains($0) }),
            keyIndices.allSatisfy({ BirthmarkKeys.keyIndices.contains($0) })
        else { return nil }
        let token = BirthmarkMobileToken(encryptedNucToken: sealed, tableReferences: tableIds, keyIndices: keyIndices)
        guard let parts = try? token.sealedParts() else { return nil }
        return Parsed(token: .mobile(token), parts: parts)
    }

    /// An array of integers, or nil.
    static func integers(_ value: JSONValue?) -> [Int]? {
        guard let array = value?.array else { return nil }
        var out: [Int] = []
        out.reserveCapacity(array.count)
        for element in array {
            guard let n = element.integer else { return nil }
            out.append(n)
        }
        return out
    }

    /// The replay key of a token (see ``Parsed/replayKey``).
    package static func replayKey(_ token: BirthmarkToken) -> Data? {
        (try? token.sealedParts()).map { Parsed(token: token, parts: $0).replayKey }
    }
}
