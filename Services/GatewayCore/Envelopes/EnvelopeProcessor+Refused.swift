import HallmarkCore
import HallmarkMessages
import HallmarkRuntime

extension EnvelopeProcessor {
    /// A decrypt request refused before it was read (a broken envelope, too large, failing)
    /// but whose id reads is answered `rejected` on the decrypt result topic (DESIGN §2):
    /// `malformed`, `oversized` or `processing_failed`. A refused encrypt request (those, or a
    /// multipart body that cannot be split, `malformed_multipart`) is answered the same way on
    /// the encrypt result topic, in its rejected form, which carries no request to chain on.
    public func answer(refused message: RefusedMessage) throws -> [StageOutput]? {
        if message.kafka.topic == configuration.encryptInput {
            let result = CarrierRejection<EncryptResult>.answer(
                message.resultID, requestID: message.id, correlationID: message.correlationID, code: message.resultReason,
                counting: metrics.encryptRejections)
            return [try .json(topic: message.replyTopic(or: configuration.encryptOutput), key: message.key, result)]
        }
        guard message.kafka.topic == configuration.decryptInput else { return nil }
        let reason = DecryptResult.Reason(rawValue: message.resultReason) ?? .malformed
        metrics.decryptRejected[reason]?.increment()
        let result = DecryptResult(
            id: message.resultID, producedAt: Timestamp.now(), correlationID: message.correlationID,
            requestID: message.id, reason: reason)
        return [try .json(topic: message.replyTopic(or: configuration.decryptOutput), key: message.key, result)]
    }
}
