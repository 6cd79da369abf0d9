import HallmarkCore
import HallmarkMessages
import HallmarkRuntime

extension SubmissionIntake {
    /// A submission refused before the intake saw it (a broken envelope, too large, failing)
    /// but whose id reads is answered `rejected` on its reply topic (DESIGN §2), with
    /// `malformed`, `oversized` or `processing_failed`, so a camera waiting never waits for ever.
    package func answer(refused message: RefusedMessage) throws -> [StageOutput]? {
        let reason = SubmissionResult.Reason(rawValue: message.resultReason) ?? .malformed
        metrics.submission(reason.rawValue)
        return [try message.reply(SubmissionResult(reason: reason), or: configuration.submissionOutput)]
    }
}
