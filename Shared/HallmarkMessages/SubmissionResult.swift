/// `hallmark.submission.result.v1`: the aggregator's answer to a submission, sent only after
/// the checkpoint covering its leaves is committed. `accepted`: at least one hash appended;
/// `duplicate`: every hash was already in the log; `rejected`: one reason, no leaves.
public struct SubmissionResult: MessageBody, Hashable {
    public static let schemaName = "hallmark.submission.result.v1"

    /// `accepted`, `rejected` or `duplicate`.
    public enum Status: String, Codable, Sendable { case accepted, rejected, duplicate }

    /// Why a submission was rejected: the aggregator's own reasons and the authority's.
    public enum Reason: String, Codable, Sendable, CaseIterable {
        case malformed
        /// A `CameraSubmission` naming another authority.
        case unknownAuthority = "unknown_authority"
        /// The authority did not answer within the configured time.
        case validationTimeout = "validation_timeout"
        case unknownTable = "unknown_table"
        case authenticationFailed = "authentication_failed"
        case unknownDevice = "unknown_device"
        case tableNotAssigned = "table_not_assigned"
        case blacklisted
        case replayedToken = "replayed_token"
        /// The hashes break DESIGN §2's provenance rule.
        case invalidProvenance = "invalid_provenance"
        /// The id was already used for other bytes (DESIGN §2, ids): not a redelivery.
        case idReused = "id_reused"
        /// Larger than the aggregator's message limit.
        case oversized
        /// Processing kept failing.
        case processingFailed = "processing_failed"
        /// A certificate bundle's certificate is not one Hallmark reads (DESIGN BM-CERT).
        case invalidCertificate = "invalid_certificate"
        /// No trusted manufacturer CA signed it.
        case untrustedCertificate = "untrusted_certificate"
        /// Outside its validity period.
        case certificateExpired = "certificate_expired"
        /// Not its key's signature over either signed form.
        case badSignature = "bad_signature"

        /// The aggregator's reason for an authority FAIL.
        public init(_ reason: ValidationReason) {
            self = Reason(rawValue: reason.rawValue)!
        }
    }

    /// Where one hash of the submission is in the log.
    public struct Leaf: Codable, Sendable, Hashable {
        /// Appended now, or already in the log.
        public enum Status: String, Codable, Sendable { case appended, duplicate }

        public var imageHash: String
        public var leafIndex: UInt64
        public var status: Status

        public init(imageHash: String, leafIndex: UInt64, status: Status) {
            self.imageHash = imageHash
            self.leafIndex = leafIndex
            self.status = status
        }

        enum CodingKeys: String, CodingKey {
            case status
            case imageHash = "image_hash"
            case leafIndex = "leaf_index"
        }
    }

    public var status: Status
    public var reason: Reason?
    /// One per image hash, in the submission's order (accepted and duplicate).
    public var leaves: [Leaf]?
    /// The size of the checkpoint that covers the leaves (accepted).
    public var treeSize: UInt64?
    /// A certificate bundle's signed form (accepted or duplicate): `canonical` or
    /// `image_hash_timestamp` (DESIGN BM-CERT).
    public var signedFields: String?

    /// An accepted or duplicate submission: `accepted` when any leaf was appended now.
    public init(leaves: [Leaf], treeSize: UInt64?, signedFields: String? = nil) {
        status = leaves.contains { $0.status == .appended } ? .accepted : .duplicate
        self.leaves = leaves
        self.treeSize = treeSize
        self.signedFields = signedFields
    }

    /// A rejected submission.
    public init(reason: Reason) {
        status = .rejected
        self.reason = reason
    }

    enum CodingKeys: String, CodingKey {
        case status, reason, leaves
        case treeSize = "tree_size"
        case signedFields = "signed_fields"
    }
}
