import Foundation
import HallmarkCore

/// The fields every Hallmark message carries (DESIGN.md §2, `proto-json/common/envelope.json`):
/// one type for every message, typed, with the id and the time as written.
public struct EnvelopeHeader: Codable, Sendable, Hashable {
    /// The message type and version, e.g. `hallmark.sign.request.v1`.
    public var schema: String
    /// The idempotency key.
    public var id: MessageID
    /// When the message was produced.
    public var producedAt: Timestamp
    /// Ties a result to its request; a result always carries one (its request's, or the
    /// request's `id` when it had none).
    public var correlationID: String?
    /// A request's topic for its result, when the stage's allowlist names it.
    public var replyTo: String?
    /// The request a message answers or is about (a result's request, an event's).
    public var requestID: MessageID?

    public init(
        schema: String, id: MessageID, producedAt: Timestamp = .now(),
        correlationID: String? = nil, replyTo: String? = nil, requestID: MessageID? = nil
    ) {
        self.schema = schema
        self.id = id
        self.producedAt = producedAt
        self.correlationID = correlationID
        self.replyTo = replyTo
        self.requestID = requestID
    }

    /// The header of answer `id` to request `requestID`: the request's `correlationID`, or its
    /// id when it had none; produced now.
    public static func answer(
        _ schema: String, id: MessageID, to requestID: MessageID, correlationID: String?
    ) -> EnvelopeHeader {
        EnvelopeHeader(schema: schema, id: id, correlationID: correlationID ?? requestID.text, requestID: requestID)
    }

    enum CodingKeys: String, CodingKey {
        case schema, id
        case producedAt = "produced_at"
        case correlationID = "correlation_id"
        case replyTo = "reply_to"
        case requestID = "request_id"
    }

    /// The ids and the time as the strings they are written as: the same bytes as encoding
    /// them as values, without an encoder for each (every message Hallmark writes has a header).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(schema, forKey: .schema)
        try c.encode(id.text, forKey: .id)
        try c.encode(producedAt.text, forKey: .producedAt)
        try c.encodeIfPresent(correlationID, forKey: .correlationID)
        try c.encodeIfPresent(replyTo, forKey: .replyTo)
        try c.encodeIfPresent(requestID?.text, forKey: .requestID)
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
        return (try read(members: fields), fields)
    }

    /// The checked envelope of a message already parsed into its members (a batch carrier's
    /// item, DESIGN §2).
    /// - Throws: ``EnvelopeError`` `invalid_envelope`, as ``parse(_:)``.
    public static func read(members fields: [String: JSONValue]) throws(EnvelopeError) -> EnvelopeHeader {
        guard let schema = fields["schema"]?.string, !schema.isEmpty else {
            throw EnvelopeError(.invalidEnvelope, "`schema` is missing or not a string")
        }
        guard let id = fields["id"]?.string.flatMap(MessageID.init) else {
            throw EnvelopeError(.invalidEnvelope, "`id` is missing or not a UUID")
        }
        guard let producedAt = fields["produced_at"]?.string.flatMap(Timestamp.init) else {
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
        return EnvelopeHeader(
            schema: schema, id: id, producedAt: producedAt,
            correlationID: correlationID, replyTo: replyTo,
            requestID: fields["request_id"]?.string.flatMap(MessageID.init))
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
