import HallmarkCore
import HallmarkMessages
import HallmarkRuntime

extension LogVerifier {
    /// A verify request refused before the verifier saw it but whose id reads is answered
    /// `rejected` / `malformed` (DESIGN §2): the verifier is read-only, and its result names no
    /// other reason of the runtime's.
    public func answer(refused message: RefusedMessage) throws -> [StageOutput]? {
        let query = message.fields["query"]?.string.flatMap(LogVerifyRequest.Query.init(rawValue:)) ?? .inclusion
        metrics.verification(LogVerifyResult.Status.rejected.rawValue)
        let result = LogVerifyResult.rejected(
            id: message.resultID, producedAt: Timestamp.now(), correlationID: message.correlationID,
            requestID: message.id, query: query, reason: .malformed)
        return [try .json(topic: message.replyTopic(or: configuration.verifyOutput), key: message.key, result)]
    }
}
