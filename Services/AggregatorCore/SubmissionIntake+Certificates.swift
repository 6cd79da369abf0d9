import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime

extension SubmissionIntake {
    /// A certificate bundle's ask (DESIGN BM-CERT): refused at once by its own checks
    /// (``CertificateBundles``), else the one question for the authority, about its device's
    /// sealed handle (`hallmark.device.request.v1`, ids keyed as a token request's), its capture
    /// known by the keyed digest of its certificate and time, its row naming its signed form.
    func certificateAsk(
        _ submission: Submission, _ message: StageMessage, row: SubmissionRecord, correlation: UUID,
        refused: (SubmissionResult.Reason) -> Ask
    ) async throws -> Ask {
        switch await flow.certificates.check(submission) {
        case .refused(let reason):
            return refused(reason)
        case .passed(let passed):
            let request = Message(
                passed.request, id: idKey.derive(from: row.id, "token-request"), correlationID: correlation.lowercasedText,
                replyTo: configuration.tokenResults)
            let checked = SubmissionRecord(
                id: row.id, requestID: row.requestID, entries: row.entries, capturedAt: row.capturedAt,
                correlationID: row.correlationID, replyTopic: row.replyTopic, replyKey: row.replyKey,
                attribution: row.attribution, signedFields: passed.signedFields.rawValue)
            return Ask(
                message: message, row: checked, digest: Data(message.contentDigest),
                provenance: Provenance(submission.entries), capture: passed.capture, certificate: passed,
                request: try .json(topic: configuration.tokenRequests, key: correlation.lowercasedText, request),
                correlationID: correlation, refusal: nil)
        }
    }
}
