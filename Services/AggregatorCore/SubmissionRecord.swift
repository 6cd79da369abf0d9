import Foundation
import HallmarkMessages

/// What the aggregator keeps of a submission while it is validated and logged (a row of
/// `submissions`): its hashes, the capture time the camera declared, and where its answer goes.
/// No token, device signature, GPS or owner hash.
public struct SubmissionRecord: Sendable {
    /// The submission's envelope id.
    public let id: UUID
    /// The id exactly as the submission wrote it (either case): answers carry it as written.
    public let requestID: String
    public let entries: [Submission.ImageHash]
    /// Unix seconds, as the camera sent them (the leaves' timestamp).
    public let capturedAt: UInt64
    /// The answer's `correlation_id`.
    public let correlationID: String
    /// Where the answer goes (the output topic or an allowed `reply_to`), and its key.
    public let replyTopic: String
    public let replyKey: [UInt8]?

    /// - Parameter requestID: the id as written; by default `id` in lower case.
    public init(
        id: UUID, requestID: String? = nil, entries: [Submission.ImageHash], capturedAt: UInt64, correlationID: String,
        replyTopic: String, replyKey: [UInt8]?
    ) {
        self.id = id
        self.requestID = requestID ?? id.lowercasedText
        self.entries = entries
        self.capturedAt = capturedAt
        self.correlationID = correlationID
        self.replyTopic = replyTopic
        self.replyKey = replyKey
    }
}
