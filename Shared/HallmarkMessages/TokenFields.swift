import HallmarkCrypto

/// A camera token as a message's members, in either layout: `camera_token` (the reference
/// format), or `encrypted_nuc_token` + `table_references` + `key_indices` (the mobile app's
/// 92 bytes, or the packed reference format's 60, which the authority tells apart by length).
/// The one place a token becomes members and members a token: ``Submission`` and
/// ``TokenRequest`` both go through it.
public struct TokenFields: Codable, Sendable, Hashable {
    public var cameraToken: BirthmarkCameraToken?
    public var encryptedNucToken: String?
    public var tableReferences: [Int]?
    public var keyIndices: [Int]?

    /// The members as written.
    public init(
        cameraToken: BirthmarkCameraToken? = nil, encryptedNucToken: String? = nil, tableReferences: [Int]? = nil,
        keyIndices: [Int]? = nil
    ) {
        (self.cameraToken, self.encryptedNucToken, self.tableReferences, self.keyIndices) =
            (cameraToken, encryptedNucToken, tableReferences, keyIndices)
    }

    /// The members of `token`, in its format's layout.
    public init(_ token: BirthmarkToken) {
        switch token {
        case .reference(let t): self.init(cameraToken: t)
        case .mobile(let t):
            self.init(encryptedNucToken: t.encryptedNucToken, tableReferences: t.tableReferences, keyIndices: t.keyIndices)
        }
    }

    /// The token, when exactly one layout is complete.
    public var token: BirthmarkToken? {
        switch (cameraToken, encryptedNucToken, tableReferences, keyIndices) {
        case (let t?, nil, nil, nil): .reference(t)
        case (nil, let sealed?, let tables?, let indices?):
            .mobile(BirthmarkMobileToken(encryptedNucToken: sealed, tableReferences: tables, keyIndices: indices))
        default: nil
        }
    }

    enum CodingKeys: String, CodingKey {
        case cameraToken = "camera_token"
        case encryptedNucToken = "encrypted_nuc_token"
        case tableReferences = "table_references"
        case keyIndices = "key_indices"
    }
}
