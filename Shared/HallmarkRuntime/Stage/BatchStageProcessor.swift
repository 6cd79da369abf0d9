import Logging

/// A stage's own logic, a batch at a time: for high-volume stages whose effects need no
/// per-message transaction (they are idempotent by message id on their own), so that costs
/// that can be shared — a database round trip, a wake-up per acknowledgement — are paid
/// once per batch rather than once per message.
public protocol BatchStageProcessor: Sendable {
    /// The schemas this stage takes; a message with another goes to the rejected topic as
    /// `unknown_schema`.
    var schemas: Set<String> { get }

    /// Processes messages (in their partitions' order) and returns one verdict per message,
    /// in the same order. A thrown error retries the whole batch with backoff, so effects
    /// must be idempotent by message id.
    func process(_ batch: [StageMessage], context: StageBatchContext) async throws -> [StageVerdict]
}

/// What a batch processor may use.
public struct StageBatchContext: Sendable {
    /// The stage's logger.
    public let logger: Logger
    /// How many times this batch was attempted before (0 the first time).
    public let attempt: Int
}

/// What became of one message of a batch.
public enum StageVerdict: Sendable {
    /// Processed: send these (possibly none).
    case outputs([StageOutput])
    /// Bad input: the message goes to the rejected topic.
    case rejected(StageRejection)
}
