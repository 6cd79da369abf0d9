import Foundation
import HallmarkCore

/// A camera token in either BM-TOKEN format.
public enum BirthmarkToken: Sendable, Hashable {
    /// Reference (camera) format.
    case reference(BirthmarkCameraToken)
    /// Mobile-app format.
    case mobile(BirthmarkMobileToken)

    /// The key tables this token names, for fetching master keys before validation.
    public var referencedTables: [Int] {
        switch self {
        case .reference(let t): [t.tableId]
        case .mobile(let t): t.tableReferences
        }
    }

    /// The token's AES-GCM nonce, ciphertext and tag, whichever its format.
    public func sealedParts() throws(HallmarkCryptoError) -> AESGCM256.Sealed {
        switch self {
        case .reference(let t): try t.sealedParts()
        case .mobile(let t): try t.sealedParts()
        }
    }

    private struct Probe: Decodable {
        var cameraToken: BirthmarkCameraToken?
        var ciphertext: String?
        var encryptedNucToken: String?
        enum CodingKeys: String, CodingKey {
            case ciphertext
            case cameraToken = "camera_token"
            case encryptedNucToken = "encrypted_nuc_token"
        }
    }

    /// Parses a JSON object holding a token: a reference token itself, an object with
    /// `camera_token`, or an object with `encrypted_nuc_token` + `table_references` +
    /// `key_indices`. Extra fields are ignored.
    public static func parse(_ json: some DataProtocol) throws(HallmarkCryptoError) -> BirthmarkToken {
        let probe = try JSONCoding.decode(Probe.self, from: json, what: "camera token")
        if let token = probe.cameraToken { return .reference(token) }
        if probe.ciphertext != nil {
            return .reference(try JSONCoding.decode(BirthmarkCameraToken.self, from: json, what: "camera token"))
        }
        if probe.encryptedNucToken != nil {
            return .mobile(try JSONCoding.decode(BirthmarkMobileToken.self, from: json, what: "mobile token"))
        }
        throw HallmarkCryptoError(.malformedJSON, "camera token: no token in either format")
    }
}
