import HallmarkCore

extension LogVerifyResult {
    /// One link of an image's provenance (DESIGN BM-PROVENANCE): the image, its level and its
    /// parent, either **attested** (a leaf of the log, with its index and capture time) or
    /// **claimed** (an editor's ``ModificationClaim``, stored but never logged).
    public struct ProvenanceLink: Codable, Sendable, Hashable {
        /// Whether the log attests the link or an editor claims it.
        public enum Basis: String, Codable, Sendable { case attested, claimed }

        public var imageHash: String
        public var basis: Basis
        public var modificationLevel: Int
        /// Its original (nil for a capture).
        public var parentImageHash: String?
        /// Attested: its leaf index and the capture time the camera declared (Unix seconds).
        public var leafIndex: UInt64?
        public var timestamp: UInt64?
        /// Claimed: the claim's id, when the edit was exported, by which software, and what
        /// the editor said of its original's authentication.
        public var claimID: String?
        public var exportedAt: Timestamp?
        public var softwareID: String?
        public var pluginVersion: String?
        public var authorityType: String?
        public var authenticated: Bool?

        /// An attested link: a leaf of the log.
        public init(attested imageHash: String, level: Int, parent: String?, leafIndex: UInt64, timestamp: UInt64) {
            self.imageHash = imageHash
            basis = .attested
            modificationLevel = level
            parentImageHash = parent
            self.leafIndex = leafIndex
            self.timestamp = timestamp
        }

        /// A claimed link: an editor's record of `claim.finalImageHash`.
        public init(claimed claim: ModificationClaim, claimID: String) {
            imageHash = claim.finalImageHash
            basis = .claimed
            modificationLevel = claim.modificationLevel
            parentImageHash = claim.originalImageHash
            self.claimID = claimID
            exportedAt = claim.exportedAt
            softwareID = claim.softwareID
            pluginVersion = claim.pluginVersion
            authorityType = claim.authorityType
            authenticated = claim.authenticated
        }

        enum CodingKeys: String, CodingKey {
            case basis, timestamp, authenticated
            case imageHash = "image_hash"
            case modificationLevel = "modification_level"
            case parentImageHash = "parent_image_hash"
            case leafIndex = "leaf_index"
            case claimID = "claim_id"
            case exportedAt = "exported_at"
            case softwareID = "software_id"
            case pluginVersion = "plugin_version"
            case authorityType = "authority_type"
        }
    }

    /// `traced`: the provenance of `imageHash`, original first and the image itself last (empty
    /// when the log and the claims know nothing of it), the edits claimed from it, as of
    /// `checkpoint` (nil for a log with none yet).
    public static func traced(
        imageHash: String, chain: [ProvenanceLink], derived: [ProvenanceLink] = [], checkpoint: SignedCheckpoint?
    ) -> LogVerifyResult {
        var r = LogVerifyResult(query: .provenance, status: .traced)
        (r.imageHash, r.chain, r.derived, r.checkpoint) = (imageHash, chain, derived, checkpoint)
        return r
    }
}
