import HallmarkMessages

/// A consumed message a stage answers: a processed ``StageMessage`` or a ``RefusedMessage``.
/// Its answer's header comes from it, never from the processor: the id derived from the
/// input's, the input's correlation, its id as the request id, its `reply_to` when allowed.
public protocol AnsweredMessage: Sendable {
    /// The input's `id`, exactly as written: the answer's `request_id`.
    var requestID: MessageID { get }
    /// The input's `correlation_id`, or its `id` when it had none.
    var correlationID: String { get }
    /// The answer's id, derived from the input.
    var resultID: MessageID { get }
    /// The input's Kafka key as text.
    var key: String? { get }
    /// Where the answer goes: the input's `reply_to` when the stage's allowlist names it, else
    /// `output`.
    func replyTopic(or output: String) -> String
}

extension AnsweredMessage {
    /// The header of this message's answer under `schema`: ``resultID`` unless `id` is given
    /// (an answer of a kind the stage sends besides its result, say).
    public func answerHeader(_ schema: String, id: MessageID? = nil) -> EnvelopeHeader {
        .answer(schema, id: id ?? resultID, to: requestID, correlationID: correlationID)
    }

    /// `body` as this message's answer, with the header filled (``answerHeader(_:id:)``).
    public func answer<Body: MessageBody>(_ body: Body, id: MessageID? = nil) -> Message<Body> {
        Message(body, header: answerHeader(Body.schemaName, id: id))
    }

    /// `body` as this message's answer, sent to its `reply_to` when allowed, else `output`,
    /// under the input's Kafka key.
    public func reply<Body: MessageBody>(_ body: Body, id: MessageID? = nil, or output: String) throws -> StageOutput {
        try reply(body, id: id, or: output, key: key)
    }

    /// The same, under `key`.
    public func reply<Body: MessageBody>(
        _ body: Body, id: MessageID? = nil, or output: String, key: String?
    ) throws -> StageOutput {
        try .json(topic: replyTopic(or: output), key: key, answer(body, id: id))
    }
}

extension StageMessage: AnsweredMessage {
    public var requestID: MessageID { header.id }
}

extension RefusedMessage: AnsweredMessage {
    public var requestID: MessageID { id }
}
