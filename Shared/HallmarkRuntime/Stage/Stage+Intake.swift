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
        /// Broke its schema, and the processor answered it with a typed result (sent after the
        /// message's rejected record, DESIGN §2).
        case answered(MessageID, StageRejection, [StageOutput])
        /// Refused: it goes to the rejected topic, and to the result topic when its id is
        /// readable (`refused`).
        case refused(RefusedMessage?, StageRejection)
    }

    /// Checks size, envelope, the schema's place on this topic and the body against the
    /// schema's JSON Schema, in that order, so each check can trust the previous one.
    func intake(_ message: KafkaMessage) -> Intake {
        let replyTopics = configuration.replyTopics
        guard message.value.count <= configuration.maxMessageBytes else {
            // Read for its id only, so its caller hears `oversized` (the broker bounds the size).
            return .refused(
                RefusedMessage(reading: message, reason: .oversized, replyTopics: replyTopics),
                StageRejection(.oversized, "\(message.value.count) bytes; the limit is \(configuration.maxMessageBytes)"))
        }
        let header: EnvelopeHeader, fields: [String: JSONValue]
        do {
            (header, fields) = try EnvelopeHeader.read(message.value)
        } catch {
            return .refused(
                RefusedMessage(reading: message, reason: error.code, replyTopics: replyTopics),
                StageRejection(error.code, error.reason))
        }
        let stageMessage = StageMessage(header: header, kafka: message, fields: fields, replyTopics: replyTopics)
        guard accepted[message.topic]?.contains(header.schema) == true else {
            return .refused(
                RefusedMessage(stageMessage, reason: .unknownSchema),
                StageRejection(
                    .unknownSchema,
                    "schema \(Redaction.name(header.schema)) is not taken from \(message.topic)"))
        }
        guard let schema = MessageSchemas.schema(header.schema) else {
            return .refused(
                RefusedMessage(stageMessage, reason: .unknownSchema),
                StageRejection(.unknownSchema, "no JSON Schema for \(header.schema)"))
        }
        guard let violation = schema.validate(.object(fields)) else { return .accepted(stageMessage) }
        do {
            if let outputs = try processor.answer(invalid: stageMessage, violation: violation) {
                return .answered(header.id, StageRejection(.schemaViolation, violation.description), outputs)
            }
        } catch let rejection as StageRejection {
            // Refused without an answer, its outputs (a security event) aside: its typed answer
            // is asked for as for any refusal, and goes between its record and those outputs
            // (without outputs, the record's own step asks for it).
            let refused = RefusedMessage(stageMessage, reason: rejection.reason)
            guard !rejection.outputs.isEmpty else { return .refused(refused, rejection) }
            return .refused(
                refused, StageRejection(rejection.reason, rejection.detail, sending: answer(refused) + rejection.outputs))
        } catch {
            logger(for: message, id: header.id).warning(
                "no typed answer for an invalid message",
                metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
        }
        return .refused(
            RefusedMessage(stageMessage, reason: .schemaViolation),
            StageRejection(.schemaViolation, violation.description))
    }

    /// The rejected-topic record for a message, counted and logged, then its answer on the
    /// result topic when its id is readable (`refused`), then the rejection's own outputs.
    func rejectedOutput(
        _ message: KafkaMessage, id: MessageID?, _ rejection: StageRejection,
        refused: RefusedMessage? = nil
    ) -> [StageOutput] {
        noteRejected(message, id: id, rejection)
        return rejectionRecord(message, id: id, rejection, refused: refused)
    }

    /// Counts and logs a rejection.
    func noteRejected(_ message: KafkaMessage, id: MessageID?, _ rejection: StageRejection) {
        metrics.rejected(rejection.reason).increment()
        logger(for: message, id: id).notice(
            "message rejected",
            metadata: [
                "reason": "\(rejection.reason)", "detail": "\(rejection.detail)",
            ])
    }

    /// The rejected-topic record for a message; then, when its id is readable and the
    /// rejection is the runtime's (it carries no outputs of the processor's own, or the id was
    /// reused), the processor's typed answer on its result topic; then the rejection's own
    /// outputs. The record always fits the producer's limit: a large original travels as its
    /// digest, size and first bytes. Its id derives from the message's id and place in its
    /// topic, so a redelivery makes the same record, and a replay or a reused id a new one.
    func rejectionRecord(
        _ message: KafkaMessage, id: MessageID?, _ rejection: StageRejection,
        refused: RefusedMessage? = nil
    ) -> [StageOutput] {
        let record = RejectedRecord(
            service: configuration.service, instance: configuration.instance,
            reason: rejection.reason, detail: rejection.detail,
            source: .init(topic: message.topic, partition: message.partition, offset: message.offset),
            originalID: id, original: message.value, limit: producer.maxMessageBytes - (message.key?.count ?? 0),
            copiesOriginal: configuration.rejectedCopiesOriginal)
        let recordID = MessageID.derived(
            from: "\(id?.text ?? "-")@\(message.topic)/\(message.partition)/\(message.offset)", "rejected")
        var outputs: [StageOutput] = []
        do {
            outputs.append(
                KafkaOutgoingMessage(
                    topic: configuration.rejectedTopic, key: message.key,
                    value: try JSONCoding.encode(Message(record, id: recordID))))
        } catch {
            // Strings and integers always encode; were it ever to fail, the message still ends.
            logger(for: message, id: id).error("rejected record not written", metadata: ["error": "\(error)"])
        }
        if let refused, rejection.outputs.isEmpty || rejection.reason == .idReused {
            outputs += answer(refused)
        }
        return outputs + rejection.outputs
    }

    /// The processor's typed answer to a refused message, unless it cannot make one or the
    /// answer would not fit (the rejected record still goes).
    private func answer(_ refused: RefusedMessage) -> [StageOutput] {
        do {
            guard let outputs = try processor.answer(refused: refused) else { return [] }
            return oversized(outputs) == nil ? outputs : []
        } catch {
            logger(for: refused.kafka, id: refused.id).warning(
                "no typed answer for a refused message",
                metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
            return []
        }
    }
}
