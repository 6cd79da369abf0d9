import HallmarkCore
import HallmarkMessages
import HallmarkRuntime

extension EnvelopeProcessor {
    /// A decrypt request refused before it was read (a broken envelope, too large, failing)
    /// but whose id reads is answered `rejected` on the decrypt result topic (DESIGN §2):
    /// `malformed`, `oversized` or `processing_failed`. A refused encrypt request (those, or a
    /// multipart body that cannot be split, `malformed_multipart`) is answered the same way on
    /// the encrypt result topic, in its rejected form, which carries no request to chain on.
    package func answer(refused message: RefusedMessage) throws -> [StageOutput]? {
        if message.kafka.topic == configuration.encryptInput {
            let result = CarrierRejection<EncryptResult>(code: message.resultReason, counting: metrics.encryptRejections)
            return [try message.reply(result, or: configuration.encryptOutput)]
        }
        guard message.kafka.topic == configuration.decryptInput else { return nil }
        let reason = DecryptResult.Reason(rawValue: message.resultReason) ?? .malformed
        metrics.decryptRejected[reason]?.increment()
        return [try message.reply(DecryptResult(reason: reason), or: configuration.decryptOutput)]
    }
}
