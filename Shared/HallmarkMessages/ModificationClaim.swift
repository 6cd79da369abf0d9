import HallmarkCore

/// `hallmark.modification.claim.v1` (`birthmark.modifications`): an editor's record of an edit
/// (DESIGN BM-PROVENANCE), as the reference editing plugin sends it to
/// `POST /api/v1/modifications`. No software authority exists yet, so it is a **claim**: stored
/// and linked to its original, never logged, and never what makes an image verified.
public struct ModificationClaim: MessageBody, Hashable {
    public static let schemaName = "hallmark.modification.claim.v1"

    /// The image the edit began from, hex.
    public var originalImageHash: String
    /// The image the edit exported, hex.
    public var finalImageHash: String
    /// 0 raw, 1 processed, 2 modified, as the editor says.
    public var modificationLevel: Int
    /// What the editor says of its original's authentication (never checked: a claim).
    public var authenticated: Bool
    /// Width and height, when the editor gave them.
    public var originalDimensions: [Int]?
    public var finalDimensions: [Int]?
    /// The editing software, as its authority named it.
    public var softwareID: String
    public var pluginVersion: String
    /// When tracking began and when the edit was exported.
    public var initializedAt: Timestamp
    public var exportedAt: Timestamp
    /// Who would attest the edit (`software` for an editor).
    public var authorityType: String

    public init(
        originalImageHash: String, finalImageHash: String, modificationLevel: Int, authenticated: Bool,
        originalDimensions: [Int]? = nil, finalDimensions: [Int]? = nil, softwareID: String, pluginVersion: String,
        initializedAt: Timestamp, exportedAt: Timestamp, authorityType: String = "software"
    ) {
        self.originalImageHash = originalImageHash
        self.finalImageHash = finalImageHash
        self.modificationLevel = modificationLevel
        self.authenticated = authenticated
        self.originalDimensions = originalDimensions
        self.finalDimensions = finalDimensions
        self.softwareID = softwareID
        self.pluginVersion = pluginVersion
        self.initializedAt = initializedAt
        self.exportedAt = exportedAt
        self.authorityType = authorityType
    }

    enum CodingKeys: String, CodingKey {
        case authenticated
        case originalImageHash = "original_image_hash"
        case finalImageHash = "final_image_hash"
        case modificationLevel = "modification_level"
        case originalDimensions = "original_dimensions"
        case finalDimensions = "final_dimensions"
        case softwareID = "software_id"
        case pluginVersion = "plugin_version"
        case initializedAt = "initialized_at"
        case exportedAt = "exported_at"
        case authorityType = "authority_type"
    }
}
