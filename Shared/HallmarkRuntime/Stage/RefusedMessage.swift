import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages

/// A consumed message the runtime refused before its processor could answer it — a broken
/// envelope, a schema its topic does not take, a body that breaks its JSON Schema, a size over
/// the limit, an id already used for something else, processing that kept failing — but whose
/// `id` could be read. Besides its `hallmark.rejected` record it is answered on the stage's
/// result topic (``StageProcessor/answer(refused:)``), so a caller waiting for its answer never
/// waits for ever (DESIGN §2).
public struct RefusedMessage: Sendable {
    /// Where it came from, with its raw key and value.
    public let kafka: KafkaMessage
    /// The envelope's `id`, exactly as written.
    public let id: MessageID
    /// The envelope's `schema` when it is a string.
    public let schema: String?
    /// The input's `correlation_id` when it is a valid one, else its `id`.
    public let correlationID: String
    /// The message's top-level members (empty when it is not a JSON object).
    public let fields: [String: JSONValue]
    /// Why it was refused.
    public let reason: RejectionReason
    private let replyTo: String?
    private let replyTopics: Set<String>

    init(
        kafka: KafkaMessage, id: MessageID, schema: String?, correlationID: String?, replyTo: String?,
        fields: [String: JSONValue], reason: RejectionReason, replyTopics: Set<String>
    ) {
        self.kafka = kafka
        self.id = id
        self.schema = schema
        self.correlationID = correlationID ?? id.text
        self.replyTo = replyTo
        self.fields = fields
        self.reason = reason
        self.replyTopics = replyTopics
    }

    /// What can be read of a message whose envelope is broken (or that was not parsed):
    /// nil unless it is a JSON object with a UUID `id`. A malformed `correlation_id` or
    /// `reply_to` is left out, never carried into an answer.
    init?(reading kafka: KafkaMessage, reason: RejectionReason, replyTopics: Set<String>) {
        guard case .object(let fields)? = try? JSONReader.parse(kafka.value),
            let id = fields["id"]?.string.flatMap(MessageID.init)
        else { return nil }
        let correlationID = fields["correlation_id"]?.string.flatMap { EnvelopeHeader.isCorrelationID($0) ? $0 : nil }
        let replyTo = fields["reply_to"]?.string.flatMap { EnvelopeHeader.isTopicName($0) ? $0 : nil }
        self.init(
            kafka: kafka, id: id, schema: fields["schema"]?.string, correlationID: correlationID,
            replyTo: replyTo, fields: fields, reason: reason, replyTopics: replyTopics)
    }

    /// A message whose envelope was read.
    init(_ message: StageMessage, reason: RejectionReason) {
        self.init(
            kafka: message.kafka, id: message.header.id, schema: message.header.schema,
            correlationID: message.header.correlationID, replyTo: message.header.replyTo,
            fields: message.fields, reason: reason, replyTopics: message.replyTopics)
    }

    /// The input's Kafka key as text.
    public var key: String? { kafka.key.map { String(decoding: $0, as: UTF8.self) } }

    /// The answer's id: derived from the id and the message's place in its topic, so a
    /// redelivery gets the same id, while the answer to a replay or to an id used again is not
    /// taken for the first message's answer (whose id derives from the id alone).
    public var resultID: MessageID { Self.placeID(id, kafka, "refused-result") }

    /// A UUID derived from an id, the message's topic, partition and offset, and `name`.
    public static func placeID(_ id: MessageID, _ kafka: KafkaMessage, _ name: String) -> MessageID {
        MessageID.derived(from: "\(id.text)@\(kafka.topic)/\(kafka.partition)/\(kafka.offset)", name)
    }

    /// The reason a result's schema names for this refusal: `malformed` for a broken envelope
    /// or body, else the runtime's own code (`oversized`, `id_reused`, `processing_failed`).
    public var resultReason: String {
        switch reason {
        case .invalidJSON, .invalidEnvelope, .unknownSchema, .schemaViolation: "malformed"
        default: reason.rawValue
        }
    }

    /// Where the answer goes: the input's valid `reply_to` when the stage's allowlist names it,
    /// else `output`.
    public func replyTopic(or output: String) -> String {
        guard let replyTo, replyTopics.contains(replyTo) else { return output }
        return replyTo
    }
}
