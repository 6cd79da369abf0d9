import HallmarkCore
import HallmarkMessages
import HallmarkRuntime

extension EnvelopeProcessor {
    /// A decrypt request refused before it was read (a broken envelope, too large, failing)
    /// but whose id reads is answered `rejected` on the decrypt result topic (DESIGN §2):
    /// `malformed`, `oversized` or `processing_failed`. An encrypt result has no rejected form:
    /// a refused encrypt request's answer is its rejected record.
    public func answer(refused message: RefusedMessage) throws -> [StageOutput]? {
        guard message.kafka.topic == configuration.decryptInput else { return nil }
        let reason = DecryptResult.Reason(rawValue: message.resultReason) ?? .malformed
        metrics.decryptRejected[reason]?.increment()
        let result = DecryptResult(id: message.resultID, producedAt: Timestamp.now(), correlationID: message.correlationID,
                                   requestID: message.id, reason: reason)
        return [try .json(topic: message.replyTopic(or: configuration.decryptOutput), key: message.key, result)]
    }
}
