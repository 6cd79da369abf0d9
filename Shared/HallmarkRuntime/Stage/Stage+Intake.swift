import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import Logging

extension Stage {
    /// What intake made of a consumed message.
    enum Intake {
        /// Valid: on to phase 1.
        case accepted(StageMessage)
        /// Broke its schema, and the processor answered it with a typed result.
        case answered(String, [StageOutput])
        /// Refused: it goes to the rejected topic.
        case refused(id: String?, StageRejection)
    }

    /// Checks size, envelope, the schema's place on this topic and the body against the
    /// schema's JSON Schema, in that order, so each check can trust the previous one.
    func intake(_ message: KafkaMessage) -> Intake {
        guard message.value.count <= configuration.maxMessageBytes else {
            return .refused(id: nil, StageRejection(.oversized,
                "\(message.value.count) bytes; the limit is \(configuration.maxMessageBytes)"))
        }
        let header: EnvelopeHeader, fields: [String: JSONValue]
        do {
            (header, fields) = try EnvelopeHeader.read(message.value)
        } catch {
            return .refused(id: nil, StageRejection(error.code, error.reason))
        }
        guard accepted[message.topic]?.contains(header.schema) == true else {
            return .refused(id: header.id, StageRejection(.unknownSchema,
                "schema \(Redaction.name(header.schema)) is not taken from \(message.topic)"))
        }
        let stageMessage = StageMessage(header: header, kafka: message, fields: fields,
                                        replyTopics: configuration.replyTopics)
        guard let schema = MessageSchemas.schema(header.schema) else {
            return .refused(id: header.id, StageRejection(.unknownSchema, "no JSON Schema for \(header.schema)"))
        }
        guard let violation = schema.validate(.object(fields)) else { return .accepted(stageMessage) }
        do {
            if let outputs = try processor.answer(invalid: stageMessage, violation: violation) {
                return .answered(header.id, outputs)
            }
        } catch let rejection as StageRejection {
            return .refused(id: header.id, rejection)
        } catch {
            logger(for: message, id: header.id).warning("no typed answer for an invalid message",
                metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
        }
        return .refused(id: header.id, StageRejection(.schemaViolation, violation.description))
    }

    /// The rejected-topic record for a message, counted and logged.
    func rejectedOutput(_ message: KafkaMessage, id: String?, _ rejection: StageRejection) -> [StageOutput] {
        metrics.rejected(rejection.reason).increment()
        logger(for: message, id: id).notice("message rejected", metadata: [
            "reason": "\(rejection.reason)", "detail": "\(rejection.detail)",
        ])
        return rejectionRecord(message, id: id, rejection)
    }

    /// The rejected-topic record for a message, then the rejection's own outputs. The record
    /// always fits the producer's limit: a large original travels as its digest, size and
    /// first bytes.
    func rejectionRecord(_ message: KafkaMessage, id: String?, _ rejection: StageRejection) -> [StageOutput] {
        let record = RejectedRecord(
            id: MessageID.derived(from: id ?? "\(message.topic)/\(message.partition)/\(message.offset)", "rejected"),
            producedAt: Timestamp.now(), service: configuration.service, instance: configuration.instance,
            reason: rejection.reason, detail: rejection.detail,
            source: .init(topic: message.topic, partition: message.partition, offset: message.offset),
            originalID: id, original: message.value, limit: producer.maxMessageBytes - (message.key?.count ?? 0))
        do {
            return [KafkaOutgoingMessage(topic: configuration.rejectedTopic, key: message.key,
                                         value: try JSONCoding.encode(record))] + rejection.outputs
        } catch {
            // Strings and integers always encode; were it ever to fail, the message still ends.
            logger(for: message, id: id).error("rejected record not written", metadata: ["error": "\(error)"])
            return rejection.outputs
        }
    }
}
