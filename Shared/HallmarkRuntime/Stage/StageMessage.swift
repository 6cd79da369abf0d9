import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages

/// A consumed message whose envelope has been read and whose body passed its JSON Schema.
///
/// Its parts live in one immutable box: a stage hands each message through intake, phase 1,
/// the processor's prepared value and phase 2, and a copy costs one reference count rather
/// than one per string, array and dictionary inside.
public struct StageMessage: Sendable {
    private final class Storage: Sendable {
        let header: EnvelopeHeader
        let kafka: KafkaMessage
        let fields: [String: JSONValue]
        let replyTopics: Set<String>

        init(header: EnvelopeHeader, kafka: KafkaMessage, fields: [String: JSONValue], replyTopics: Set<String>) {
            self.header = header
            self.kafka = kafka
            self.fields = fields
            self.replyTopics = replyTopics
        }
    }

    private let storage: Storage

    /// The envelope fields (`schema`, `id`, …).
    public var header: EnvelopeHeader { storage.header }
    /// Where it came from, with its raw key and value.
    public var kafka: KafkaMessage { storage.kafka }
    /// The message's top-level members, read once with the envelope.
    public var fields: [String: JSONValue] { storage.fields }
    /// The topics a `reply_to` may name (the stage's allowlist).
    var replyTopics: Set<String> { storage.replyTopics }

    public init(
        header: EnvelopeHeader, kafka: KafkaMessage, fields: [String: JSONValue],
        replyTopics: Set<String> = []
    ) {
        storage = Storage(header: header, kafka: kafka, fields: fields, replyTopics: replyTopics)
    }

    /// The raw JSON bytes.
    public var value: [UInt8] { kafka.value }

    /// SHA-256 of the message's members in canonical JSON (sorted keys), without `produced_at`:
    /// what says whether a second message with this id is the same message (DESIGN §2, ids).
    /// Two messages that differ only in when they were produced — a request sent again by its
    /// requester, a result made again for it — are the same; any other difference is not.
    public var contentDigest: [UInt8] {
        var members = fields
        members["produced_at"] = nil
        return Array(SHA256Hash.digest(JSONWriter.write(.object(members))))
    }

    /// The input's Kafka key as text (for passing it on to outputs).
    public var key: String? { kafka.key.map { String(decoding: $0, as: UTF8.self) } }

    /// The id of this message's result: derived from the message's id, so re-processing a
    /// redelivery gives the same id and consumers can drop the duplicate.
    public var resultID: MessageID { MessageID.derived(from: header.id, "result") }

    /// The `correlation_id` a result carries: the input's own, or its `id` when it has none.
    public var correlationID: String { header.correlationID ?? header.id.text }

    /// Where a result goes: the input's `reply_to` when the stage's allowlist
    /// (`HALLMARK_REPLY_TOPICS`) names it, else `output`.
    public func replyTopic(or output: String) -> String {
        guard let replyTo = header.replyTo, replyTopics.contains(replyTo) else { return output }
        return replyTo
    }

    /// Decodes the body; a mismatch throws ``EnvelopeError`` `schema_violation` naming the
    /// field, which the stage turns into a rejection.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws(EnvelopeError) -> T {
        do {
            // The members intake already read and checked; the bytes are not parsed again.
            return try JSONCoding.decode(type, from: JSONValue.object(fields))
        } catch {
            throw EnvelopeError(.schemaViolation, error.description)
        }
    }
}

/// A message a stage produces: what the producer takes. It is sent, and acknowledged by the
/// broker, after the stage's effects have committed and before its input offset is stored.
public typealias StageOutput = KafkaOutgoingMessage

extension StageOutput {
    /// Encodes `message` with Hallmark's JSON settings.
    public static func json<T: HallmarkMessage>(topic: String, key: String?, _ message: T) throws -> StageOutput {
        StageOutput(topic: topic, key: key.map { Array($0.utf8) }, value: try JSONCoding.encode(message))
    }
}

/// Thrown by a processor for input it will not process; the message goes to the rejected
/// topic with this reason. `detail` names fields, never their values.
public struct StageRejection: Error, Sendable, CustomStringConvertible {
    public let reason: RejectionReason
    public let detail: String
    /// Sent with the rejected record, e.g. a security event about the rejection; recorded in
    /// the inbox with it, so a redelivery neither loses nor repeats them.
    public let outputs: [StageOutput]

    public init(_ reason: RejectionReason, _ detail: String, sending outputs: [StageOutput] = []) {
        self.reason = reason
        self.detail = detail
        self.outputs = outputs
    }

    public var description: String { "StageRejection(\(reason): \(detail))" }
}
