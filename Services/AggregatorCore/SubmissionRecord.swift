import Foundation
import HallmarkMessages

/// What the aggregator keeps of a submission while it is validated and logged (a row of
/// `submissions`): its hashes, the capture time the camera declared, what the camera said beside
/// them (``Attribution``), and where its answer goes. No token or device signature.
package struct SubmissionRecord: Sendable {
    /// The submission's envelope id.
    package let id: UUID
    /// The id exactly as the submission wrote it (either case): answers carry it as written.
    package let requestID: MessageID
    package let entries: [Submission.ImageHash]
    /// Unix seconds, as the camera sent them (the leaves' timestamp).
    package let capturedAt: UInt64
    /// The answer's `correlation_id`.
    package let correlationID: String
    /// Where the answer goes (the output topic or an allowed `reply_to`), and its key.
    package let replyTopic: String
    package let replyKey: [UInt8]?
    /// Its `gps_hash` and `owner_hash`, kept with each hash it logs.
    package let attribution: Attribution
    /// A certificate bundle's signed form (DESIGN BM-CERT), which its answer names.
    package let signedFields: String?

    /// - Parameter requestID: the id as written; by default `id` in lower case.
    package init(
        id: UUID, requestID: MessageID? = nil, entries: [Submission.ImageHash], capturedAt: UInt64, correlationID: String,
        replyTopic: String, replyKey: [UInt8]?, attribution: Attribution = .none, signedFields: String? = nil
    ) {
        self.signedFields = signedFields
        self.id = id
        self.requestID = requestID ?? MessageID(id)
        self.entries = entries
        self.capturedAt = capturedAt
        self.correlationID = correlationID
        self.replyTopic = replyTopic
        self.replyKey = replyKey
        self.attribution = attribution
    }
}
