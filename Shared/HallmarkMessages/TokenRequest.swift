import HallmarkCrypto

/// `hallmark.token.request.v1`: a camera token for the key-table authority (BM-TOKEN), in the
/// reference format (`camera_token`) or the mobile-app and packed formats
/// (`encrypted_nuc_token` + `table_references` + `key_indices`). It never carries an image
/// hash: its schema allows no other field.
public struct TokenRequest: MessageBody, Hashable {
    public static let schemaName = "hallmark.token.request.v1"

    public var cameraToken: BirthmarkCameraToken?
    public var encryptedNucToken: String?
    public var tableReferences: [Int]?
    public var keyIndices: [Int]?

    /// A request for `token`.
    public init(
        token: BirthmarkToken
    ) {
        switch token {
        case .reference(let t): cameraToken = t
        case .mobile(let t):
            encryptedNucToken = t.encryptedNucToken
            tableReferences = t.tableReferences
            keyIndices = t.keyIndices
        }
    }

    /// The token it carries, when exactly one format is complete.
    public var token: BirthmarkToken? {
        switch (cameraToken, encryptedNucToken, tableReferences, keyIndices) {
        case (let t?, nil, nil, nil): return .reference(t)
        case (nil, let sealed?, let tables?, let indices?):
            return .mobile(BirthmarkMobileToken(encryptedNucToken: sealed, tableReferences: tables, keyIndices: indices))
        default: return nil
        }
    }

    enum CodingKeys: String, CodingKey {
        case cameraToken = "camera_token"
        case encryptedNucToken = "encrypted_nuc_token"
        case tableReferences = "table_references"
        case keyIndices = "key_indices"
    }
}
