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
            let result = rejection(message.resultID, message.id, message.correlationID, reason: message.resultReason)
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

extension EnvelopeProcessor {
    /// A rejected encrypt result, counted: `reason` when the schema lists it, else `malformed`.
    func rejection(
        _ id: String, _ requestID: String, _ correlationID: String, reason: String,
        upstream: String? = nil
    ) -> CarrierRejection<EncryptResult> {
        let rejection = CarrierRejection<EncryptResult>(
            id: id, producedAt: Timestamp.now(), correlationID: correlationID, requestID: requestID,
            reason: .init(code: reason), upstreamReason: upstream)
        metrics.encryptRejections[rejection.reason]?.increment()
        return rejection
    }
}
