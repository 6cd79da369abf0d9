/// A topic a stage consumes and the message schemas it takes from it. Any other schema is
/// rejected as `unknown_schema`.
///
/// Stages chain by configuration: the signer's verify input takes verify requests and sign
/// results alike, since every request carrier has the same `headers` + `body_b64` shape.
public struct StageInput: Sendable, Hashable {
    public var topic: String
    public var schemas: Set<String>

    public init(topic: String, schemas: Set<String>) {
        self.topic = topic
        self.schemas = schemas
    }
}

/// How a stage hands consumed messages to its processor.
public enum StageDispatch: Sendable, Hashable {
    /// One message at a time per key: messages with one key keep their order, different keys
    /// run concurrently (``StageConfiguration/maxInFlight``).
    case keyLanes
    /// Batches of what each partition has waiting (up to ``StageConfiguration/maxBatch``),
    /// partitions shared out among ``StageConfiguration/batchWorkers`` workers: for
    /// high-volume stages whose costs are shared across a batch.
    case partitionBatches
}

/// The scope of the database transaction a stage's effects commit in.
public enum StageUnitOfWork: Sendable, Hashable {
    /// No transaction: phase 2 gets the pool, and its effects must be idempotent by message
    /// id on their own (a redelivered message is processed again and must get the same answer).
    case none
    /// One transaction per message, which also records the message in the inbox with its
    /// outputs: effects happen once, and a redelivery re-sends the recorded outputs.
    case perMessage
    /// The same, one transaction for a whole batch.
    case perBatch
}
