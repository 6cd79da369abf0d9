/// `hallmark.log.verify.result.v1`: the log's answer, checkable offline with the aggregator's
/// public key: the record with its inclusion proof, `not_found` as of a signed checkpoint, a
/// consistency proof, or one reason the question could not be answered.
public struct LogVerifyResult: MessageBody, Hashable {
    public static let schemaName = "hallmark.log.verify.result.v1"

    /// `found`, `not_found`, `consistent`, `traced` (provenance) or `rejected`.
    public enum Status: String, Codable, Sendable {
        case found
        case notFound = "not_found"
        case consistent
        case traced
        case rejected
    }

    /// Why a question was not answered.
    public enum Reason: String, Codable, Sendable, CaseIterable {
        /// For example `old_tree_size` above `new_tree_size`.
        case malformed
        /// A size the log has no checkpoint for.
        case unknownTreeSize = "unknown_tree_size"
    }

    /// A logged leaf.
    public struct Record: Codable, Sendable, Hashable {
        public var imageHash: String
        /// The leaf's Unix timestamp.
        public var timestamp: UInt64
        public var modificationLevel: Int
        public var parentImageHash: String?

        public init(imageHash: String, timestamp: UInt64, modificationLevel: Int, parentImageHash: String? = nil) {
            self.imageHash = imageHash
            self.timestamp = timestamp
            self.modificationLevel = modificationLevel
            self.parentImageHash = parentImageHash
        }

        enum CodingKeys: String, CodingKey {
            case timestamp
            case imageHash = "image_hash"
            case modificationLevel = "modification_level"
            case parentImageHash = "parent_image_hash"
        }
    }

    /// What the camera said beside a logged hash (DESIGN BM-PROVENANCE), kept with its leaf
    /// but not in it: nothing here is covered by the inclusion proof or the checkpoint.
    public struct Attribution: Codable, Sendable, Hashable {
        /// SHA-256 of the capture location, hex.
        public var gpsHash: String?
        /// SHA-256 of the owner's name and salt (the reference's attribution), hex.
        public var ownerHash: String?

        public init(gpsHash: String? = nil, ownerHash: String? = nil) {
            self.gpsHash = gpsHash
            self.ownerHash = ownerHash
        }

        enum CodingKeys: String, CodingKey {
            case gpsHash = "gps_hash"
            case ownerHash = "owner_hash"
        }
    }

    public var query: LogVerifyRequest.Query
    public var status: Status
    public var reason: Reason?
    public var imageHash: String?
    public var record: Record?
    /// With `found`, when the camera sent any: not covered by the proofs.
    public var attribution: Attribution?
    public var leafIndex: UInt64?
    public var checkpoint: SignedCheckpoint?
    /// RFC 6962 audit path, hex.
    public var inclusionProof: [String]?
    public var oldTreeSize: UInt64?
    /// RFC 6962 consistency proof, hex.
    public var consistencyProof: [String]?
    /// With `traced`: the image's provenance, original first.
    public var chain: [ProvenanceLink]?
    /// With `traced`: the edits claimed from the image itself (claims whose original it is).
    public var derived: [ProvenanceLink]?
    /// Whether the checkpoint's witness cosignatures satisfy the log's witness policy (C2SP
    /// tlog-policy); absent when the log has no witnesses.
    public var witnessed: Bool?

    /// The fields every answer has; set the rest for its status.
    public init(
        query: LogVerifyRequest.Query,
        status: Status
    ) {
        self.query = query
        self.status = status
    }

    /// `found`: the record, its leaf index and its inclusion proof against `checkpoint`.
    public static func found(
        record: Record, attribution: Attribution? = nil,
        leafIndex: UInt64, checkpoint: SignedCheckpoint, proof: [String]
    ) -> LogVerifyResult {
        var r = LogVerifyResult(
            query: .inclusion, status: .found)
        (r.imageHash, r.record, r.attribution, r.leafIndex, r.checkpoint, r.inclusionProof) = (
            record.imageHash, record, attribution, leafIndex, checkpoint, proof
        )
        return r
    }

    /// `not_found`: the hash is not in the log as of `checkpoint`.
    public static func notFound(
        imageHash: String,
        checkpoint: SignedCheckpoint
    ) -> LogVerifyResult {
        var r = LogVerifyResult(
            query: .inclusion, status: .notFound)
        (r.imageHash, r.checkpoint) = (imageHash, checkpoint)
        return r
    }

    /// `consistent`: the proof from `oldTreeSize` to `checkpoint`.
    public static func consistent(
        oldTreeSize: UInt64, checkpoint: SignedCheckpoint, proof: [String]
    ) -> LogVerifyResult {
        var r = LogVerifyResult(
            query: .consistency, status: .consistent)
        (r.oldTreeSize, r.checkpoint, r.consistencyProof) = (oldTreeSize, checkpoint, proof)
        return r
    }

    /// `rejected`, with its reason.
    public static func rejected(
        query: LogVerifyRequest.Query, reason: Reason
    ) -> LogVerifyResult {
        var r = LogVerifyResult(
            query: query, status: .rejected)
        r.reason = reason
        return r
    }

    enum CodingKeys: String, CodingKey {
        case query, status, reason, record, attribution, checkpoint, witnessed, chain, derived
        case imageHash = "image_hash"
        case leafIndex = "leaf_index"
        case inclusionProof = "inclusion_proof"
        case oldTreeSize = "old_tree_size"
        case consistencyProof = "consistency_proof"
    }
}
