import HallmarkCore

/// What a message says besides its envelope: the members its JSON Schema adds to
/// `proto-json/common/envelope.json`'s. ``Message`` puts the two together.
public protocol MessageBody: Codable, Sendable {
    /// The schema name, e.g. `hallmark.sign.request.v1`.
    static var schemaName: String { get }
}

/// A Hallmark message: one ``EnvelopeHeader`` and a body, written as one flat JSON object
/// (DESIGN.md §2), e.g. `Message<SignRequest>`.
///
/// The body's members read as the message's own (`request.headers`), and the envelope's as
/// `id`, `correlationID`, … . A stage answers with `reply(_:…)`, which fills the header.
@dynamicMemberLookup
public struct Message<Body: MessageBody>: HallmarkMessage {
    public static var schemaName: String { Body.schemaName }

    public var header: EnvelopeHeader
    public var body: Body

    /// A message with the given header; its `schema` is set to the body's.
    public init(_ body: Body, header: EnvelopeHeader) {
        self.body = body
        self.header = header
        self.header.schema = Body.schemaName
    }

    /// A new message (not an answer): a fresh id unless one is given, produced now.
    public init(
        _ body: Body, id: MessageID = .random(), producedAt: Timestamp = .now(),
        correlationID: String? = nil, replyTo: String? = nil, requestID: MessageID? = nil
    ) {
        self.init(
            body,
            header: EnvelopeHeader(
                schema: Body.schemaName, id: id, producedAt: producedAt, correlationID: correlationID,
                replyTo: replyTo, requestID: requestID))
    }

    /// The idempotency key.
    public var id: MessageID { header.id }
    /// When the message was produced.
    public var producedAt: Timestamp { header.producedAt }
    /// The correlation id: a request's own when it has one; a result's is always present.
    public var correlationID: String? { header.correlationID }
    /// The request a result answers, or an event is about, as written in the request.
    public var requestID: MessageID? { header.requestID }
    /// A request's `reply_to`.
    public var replyTo: String? { header.replyTo }

    public subscript<Value>(dynamicMember member: KeyPath<Body, Value>) -> Value { body[keyPath: member] }

    public subscript<Value>(dynamicMember member: WritableKeyPath<Body, Value>) -> Value {
        get { body[keyPath: member] }
        set { body[keyPath: member] = newValue }
    }

    /// Reads the header and the body from the same JSON object.
    /// - Throws: `DecodingError` when a member is missing or of the wrong type, or the
    ///   `schema` is not the body's.
    public init(from decoder: any Decoder) throws {
        header = try EnvelopeHeader(from: decoder)
        guard header.schema == Body.schemaName else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "schema is not \(Body.schemaName)"))
        }
        body = try Body(from: decoder)
    }

    /// Writes the header's members and the body's into one JSON object.
    public func encode(to encoder: any Encoder) throws {
        try header.encode(to: encoder)
        try body.encode(to: encoder)
    }
}

extension Message: Equatable where Body: Equatable {}
extension Message: Hashable where Body: Hashable {}
