import HallmarkEnvelope
import HallmarkKafka

/// A consumed message whose envelope has been read and checked.
public struct StageMessage: Sendable {
    /// The envelope fields (`schema`, `id`, …).
    public let header: EnvelopeHeader
    /// Where it came from, with its raw key and value.
    public let kafka: KafkaMessage
    /// The message's top-level members, as read once with the envelope (empty when the
    /// message was made without them).
    public let fields: [String: JSONValue]

    public init(header: EnvelopeHeader, kafka: KafkaMessage, fields: [String: JSONValue] = [:]) {
        self.header = header
        self.kafka = kafka
        self.fields = fields
    }

    /// The raw JSON bytes.
    public var value: [UInt8] { kafka.value }

    /// Decodes the body; a mismatch throws ``EnvelopeError`` `schema_violation`, which the
    /// stage turns into a rejection.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONCoding.decode(type, from: kafka.value)
    }
}

/// A message a stage produces: what the producer takes. It is sent, and acknowledged by the
/// broker, before the stage's database transaction commits and its input offset is stored.
public typealias StageOutput = KafkaOutgoingMessage

extension StageOutput {
    /// Encodes `message` with Hallmark's JSON settings.
    public static func json<T: Encodable>(topic: String, key: String?, _ message: T) throws -> StageOutput {
        StageOutput(topic: topic, key: key.map { Array($0.utf8) }, value: try JSONCoding.encode(message))
    }
}

/// Thrown by a processor for input it will not process; the message goes to the rejected
/// topic with this reason. `detail` names fields, never their values.
public struct StageRejection: Error, Sendable, CustomStringConvertible {
    public let reason: RejectionReason
    public let detail: String

    public init(_ reason: RejectionReason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "StageRejection(\(reason): \(detail))" }
}

