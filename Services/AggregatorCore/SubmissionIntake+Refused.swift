import HallmarkCore
import HallmarkMessages
import HallmarkRuntime

extension SubmissionIntake {
    /// A submission refused before the intake saw it (a broken envelope, too large, failing)
    /// but whose id reads is answered `rejected` on its reply topic (DESIGN §2), with
    /// `malformed`, `oversized` or `processing_failed`, so a camera waiting never waits for ever.
    public func answer(refused message: RefusedMessage) throws -> [StageOutput]? {
        let reason = SubmissionResult.Reason(rawValue: message.resultReason) ?? .malformed
        metrics.submission(reason.rawValue)
        let result = SubmissionResult(
            id: message.resultID, producedAt: Timestamp.now(), correlationID: message.correlationID,
            requestID: message.id, reason: reason)
        return [try .json(topic: message.replyTopic(or: configuration.submissionOutput), key: message.key, result)]
    }
}
