import HallmarkCore

/// `hallmark.modification.result.v1` (`birthmark.modification.results`): the aggregator's
/// answer to a ``ModificationClaim``, keyed to it by `request_id`.
public struct ModificationResult: MessageBody, Hashable {
    public static let schemaName = "hallmark.modification.result.v1"

    /// `recorded`, or `rejected` with a reason.
    public enum Status: String, Codable, Sendable { case recorded, rejected }

    /// Why a claim was not recorded.
    public enum Reason: String, Codable, Sendable, CaseIterable {
        case malformed
        /// The edit names its own image as its original.
        case invalidProvenance = "invalid_provenance"
        /// Another claim, from another original or at another level, holds this final image.
        case alreadyClaimed = "already_claimed"
        /// The id was already used for other bytes (DESIGN §2, ids): not a redelivery.
        case idReused = "id_reused"
        /// Larger than the aggregator's message limit.
        case oversized
        /// Processing kept failing.
        case processingFailed = "processing_failed"
    }

    public var status: Status
    public var reason: Reason?
    /// With `recorded`: the claim's final image, its level, and the id of the claim that holds
    /// it (the first recorded: the same claim sent again is recorded under its first id).
    public var finalImageHash: String?
    public var modificationLevel: Int?
    public var claimID: String?

    /// `recorded`.
    public init(recorded claimID: String, finalImageHash: String, modificationLevel: Int) {
        status = .recorded
        self.claimID = claimID
        self.finalImageHash = finalImageHash
        self.modificationLevel = modificationLevel
    }

    /// `rejected`, with its reason.
    public init(reason: Reason) {
        status = .rejected
        self.reason = reason
    }

    enum CodingKeys: String, CodingKey {
        case status, reason
        case finalImageHash = "final_image_hash"
        case modificationLevel = "modification_level"
        case claimID = "claim_id"
    }
}
