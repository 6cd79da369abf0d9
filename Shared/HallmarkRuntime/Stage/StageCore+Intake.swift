import Foundation
import HallmarkEnvelope
import HallmarkKafka
import Logging

extension StageCore {
    /// Why a message is not taken: the rejected record's fields.
    struct Refusal: Error {
        let id: String?
        let reason: RejectionReason
        let detail: String
    }

    /// Checks size, envelope and schema; the message with its envelope read, or a refusal.
    func intake(_ message: KafkaMessage, schemas: Set<String>) -> Result<StageMessage, Refusal> {
        guard message.value.count <= configuration.maxMessageBytes else {
            return .failure(Refusal(id: nil, reason: .oversized,
                                    detail: "\(message.value.count) bytes; the limit is \(configuration.maxMessageBytes)"))
        }
        let header: EnvelopeHeader, fields: [String: JSONValue]
        do {
            (header, fields) = try EnvelopeHeader.read(message.value)
        } catch {
            return .failure(Refusal(id: nil, reason: error.code, detail: error.reason))
        }
        guard schemas.contains(header.schema) else {
            return .failure(Refusal(id: header.id, reason: .unknownSchema,
                                    detail: "schema \(header.schema.prefix(80)) is not taken by \(configuration.service)"))
        }
        return .success(StageMessage(header: header, kafka: message, fields: fields))
    }

    /// The rejected-topic record for a message, counted and logged.
    func rejectedOutput(_ message: KafkaMessage, _ refusal: Refusal, _ log: Logger) -> KafkaOutgoingMessage {
        metrics.rejected(refusal.reason).increment()
        log.notice("message rejected", metadata: ["reason": "\(refusal.reason)", "detail": "\(refusal.detail)"])
        let id = refusal.id
        let record = RejectedRecord(
            id: MessageID.derived(from: id ?? "\(message.topic)/\(message.partition)/\(message.offset)", "rejected"),
            producedAt: Timestamp.now(), service: configuration.service, instance: configuration.instance,
            reason: refusal.reason, detail: refusal.detail,
            source: .init(topic: message.topic, partition: message.partition, offset: message.offset),
            originalID: id, originalB64: Data(message.value).base64EncodedString())
        // Encoding a fixed, valid struct cannot fail; an empty value would still be a record.
        let value = (try? JSONCoding.encode(record)) ?? []
        return KafkaOutgoingMessage(topic: configuration.rejectedTopic, key: message.key, value: value)
    }

    /// Sends messages until the broker acknowledges them all, retrying with backoff; false
    /// when shutdown's grace period ran out first.
    func deliver(_ messages: [KafkaOutgoingMessage], _ log: Logger) async -> Bool {
        var attempt = 0
        while true {
            do {
                try await producer.send(messages)
                return true
            } catch {
                attempt += 1
                if pastShutdownGrace { return false }
                metrics.retries.increment()
                log.warning("output not sent; retrying", metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
                try? await Task.sleep(for: backoff(attempt))
            }
        }
    }
}
