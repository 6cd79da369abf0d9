import HallmarkPostgres
import Logging

/// A stage's own logic; the runtime does everything else (consuming, envelopes, rejections,
/// transactions, idempotency, offsets, retries, shutdown).
public protocol StageProcessor: Sendable {
    /// The schemas this stage takes; a message with another goes to the rejected topic as
    /// `unknown_schema`.
    var schemas: Set<String> { get }

    /// Processes one message and returns what to produce.
    ///
    /// With a database, it runs inside the message's transaction (`context.connection`), which
    /// commits after the outputs are acknowledged; a message id already processed never gets
    /// here again. Throw ``StageRejection`` (or ``HallmarkEnvelope/EnvelopeError``) for bad
    /// input; any other error is retried with backoff.
    func process(_ message: StageMessage, context: StageContext) async throws -> [StageOutput]
}

/// What a processor may use while handling one message.
public struct StageContext: Sendable {
    /// The open transaction for this message, when the stage has a database.
    public let connection: PostgresConnection?
    /// A logger carrying the message's id and source.
    public let logger: Logger
    /// How many times this message was attempted before (0 the first time).
    public let attempt: Int
}
