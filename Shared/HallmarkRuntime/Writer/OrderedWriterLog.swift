import HallmarkPostgres

/// What an ``OrderedWriter`` appends to: the service's own part (the aggregator's transparency
/// log, the runtime's reference sequence).
public protocol OrderedWriterLog: Sendable {
    /// One waiting item.
    associatedtype Item: Sendable

    /// Up to `limit` waiting items, oldest first, read in the writer's transaction.
    func waiting(limit: Int, on connection: PostgresConnection) async throws -> [Item]

    /// How many items wait, counting no further than `limit`: the writer asks this while a
    /// batch fills and reads the items only once it closes. By default, `waiting(…).count`.
    func waitingCount(limit: Int, on connection: PostgresConnection) async throws -> Int

    /// Appends `items` after `position` (the log's size before them) in the same transaction:
    /// writes the entries, removes the items from what waits, and says how many positions the
    /// entries took (an item may take none, e.g. a hash already logged, or several) and what to
    /// send once the transaction has committed (results, a checkpoint).
    func append(_ items: [Item], at position: Int64, on connection: PostgresConnection) async throws -> OrderedWriterBatch

    /// Makes a committed batch's outputs again from the record its ``append(_:at:on:)`` kept
    /// (``OrderedWriterBatch/outbox``), for a leader that takes over before the broker
    /// acknowledged them: the same messages, under the same ids. Called only for batches that
    /// kept a record.
    func outputs(again record: [UInt8], on connection: PostgresConnection) async throws -> [StageOutput]
}

extension OrderedWriterLog {
    public func waitingCount(limit: Int, on connection: PostgresConnection) async throws -> Int {
        try await waiting(limit: limit, on: connection).count
    }

    /// A log that keeps no records (its batches' outputs are stored as they are) is never asked.
    public func outputs(again record: [UInt8], on connection: PostgresConnection) async throws -> [StageOutput] {
        preconditionFailure("\(Self.self) kept an outbox record but makes no outputs from one")
    }
}

/// What one batch appended: the positions it took and the outputs to send after its commit.
public struct OrderedWriterBatch: Sendable {
    /// Positions taken (the log's size grows by this much).
    public var appended: Int
    /// Sent once the batch has committed, before the next batch.
    public var outputs: [StageOutput]
    /// What the log needs to make ``outputs`` again (``OrderedWriterLog/outputs(again:on:)``),
    /// stored in the outbox instead of them; nil stores the outputs. A log whose outputs are in
    /// its own tables already keeps a few bytes a batch here rather than a copy of them.
    public var outbox: [UInt8]?

    public init(appended: Int, outputs: [StageOutput], outbox: [UInt8]? = nil) {
        self.appended = appended
        self.outputs = outputs
        self.outbox = outbox
    }
}
