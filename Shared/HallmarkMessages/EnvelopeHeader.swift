import Foundation
import HallmarkCore

/// The fields every Hallmark message carries (DESIGN.md §2).
public struct EnvelopeHeader: Codable, Sendable, Equatable {
    /// The message type and version, e.g. `hallmark.sign.request.v1`.
    public var schema: String
    /// A UUID; the idempotency key.
    public var id: String
    /// When the message was produced, ISO 8601 with milliseconds.
    public var producedAt: String
    public var correlationID: String?
    public var replyTo: String?

    public init(
        schema: String, id: String, producedAt: String = Timestamp.now(),
        correlationID: String? = nil, replyTo: String? = nil
    ) {
        self.schema = schema
        self.id = id
        self.producedAt = producedAt
        self.correlationID = correlationID
        self.replyTo = replyTo
    }

    enum CodingKeys: String, CodingKey {
        case schema, id
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
        case replyTo = "reply_to"
    }

    /// Reads and checks the envelope fields of a raw message.
    /// - Throws: ``EnvelopeError`` `invalid_json` when the bytes are not a JSON object,
    ///   `invalid_envelope` when `schema`, `id` or `produced_at` is missing or malformed, or
    ///   `correlation_id` or `reply_to` is malformed (a result carries them on, so a stage must
    ///   never answer with one that breaks its own schema).
    public static func parse(_ bytes: [UInt8]) throws -> EnvelopeHeader {
        try read(bytes).header
    }

    /// Reads a raw message once: its checked envelope and all its top-level members, so a
    /// stage can check the body without parsing the bytes again.
    /// - Throws: as ``parse(_:)``.
    public static func read(_ bytes: [UInt8]) throws(EnvelopeError) -> (header: EnvelopeHeader, fields: [String: JSONValue]) {
        let value: JSONValue
        do {
            value = try JSONReader.parse(bytes)
        } catch {
            throw EnvelopeError(.invalidJSON, "the message is not valid UTF-8 JSON (\(error.reason) at byte \(error.offset))")
        }
        guard case .object(let fields) = value else {
            throw EnvelopeError(.invalidJSON, "the message is not a JSON object")
        }
        guard let schema = fields["schema"]?.string, !schema.isEmpty else {
            throw EnvelopeError(.invalidEnvelope, "`schema` is missing or not a string")
        }
        guard let id = fields["id"]?.string, UUID(text: id) != nil else {
            throw EnvelopeError(.invalidEnvelope, "`id` is missing or not a UUID")
        }
        guard let producedAt = fields["produced_at"]?.string, Timestamp.parse(producedAt) != nil else {
            throw EnvelopeError(.invalidEnvelope, "`produced_at` is missing or not ISO 8601")
        }
        func optionalString(_ name: String) throws(EnvelopeError) -> String? {
            guard let value = JSONValue.optionalString(fields[name]) else {
                throw EnvelopeError(.invalidEnvelope, "`\(name)` is not a string")
            }
            return value
        }
        let correlationID = try optionalString("correlation_id"), replyTo = try optionalString("reply_to")
        if let correlationID, !isCorrelationID(correlationID) {
            throw EnvelopeError(.invalidEnvelope, "`correlation_id` is not 1-128 printable ASCII characters")
        }
        if let replyTo, !isTopicName(replyTo) {
            throw EnvelopeError(.invalidEnvelope, "`reply_to` is not a topic name")
        }
        let header = EnvelopeHeader(
            schema: schema, id: id, producedAt: producedAt,
            correlationID: correlationID, replyTo: replyTo)
        return (header, fields)
    }

    /// `$defs/correlation_id`: 1–128 printable ASCII characters, no spaces.
    public static func isCorrelationID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128 && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// `$defs/reply_to`: a Kafka topic name (1–249 of `A-Z a-z 0-9 . _ -`, not `.` or `..`).
    public static func isTopicName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 249 && text != "." && text != ".."
            && text.utf8.allSatisfy { c in
                (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x2E || c == 0x5F
                    || c == 0x2D
            }
    }
}
