import HallmarkCore
import HallmarkPostgres
import HallmarkKafka
import HallmarkMessages
import Logging

/// A stage's own logic, in two phases; the runtime does everything else (consuming, envelope
/// and schema checks, rejections, transactions, idempotency, offsets, retries, shutdown).
///
/// Phase 1, ``prepare(_:context:)``, runs per message outside any transaction: parsing,
/// cryptography, PBKDF2, waiting. Phase 2, ``commit(_:context:)``, gets the prepared
/// messages (one, or a batch) and writes their effects — inside the unit's transaction when
/// the stage has one (``StageUnitOfWork``) — and returns what to produce. A connection is
/// held only for phase 2, and outputs are sent only after it commits.
public protocol StageProcessor: Sendable {
    /// What phase 1 hands to phase 2 for one message.
    associatedtype Prepared: Sendable

    /// Phase 1 for one message. Throw ``StageRejection`` (or ``HallmarkMessages/EnvelopeError``)
    /// for bad input; other errors are retried with backoff (transient ones without limit).
    func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared

    /// Phase 2 for prepared messages in their partitions' order: one verdict each, in order.
    /// A thrown error retries the whole call (after rolling back its transaction); a call that
    /// keeps failing is split, so a poison message is rejected alone.
    func commit(_ batch: [Prepared], context: StageCommitContext) async throws -> [StageVerdict]

    /// A typed answer for a message that breaks its schema, e.g. a `malformed` verdict on the
    /// stage's own result topic; nil (the default) sends it to the rejected topic. Throwing a
    /// ``StageRejection`` rejects it with that reason and the rejection's outputs instead (a
    /// security event, say), still answered by ``answer(refused:)`` between its rejected record
    /// and those outputs.
    func answer(invalid message: StageMessage, violation: SchemaViolation) throws -> [StageOutput]?

    /// A typed answer on the stage's result topic for a message the runtime refused but whose
    /// `id` could be read (``RefusedMessage``: a broken envelope, an unknown schema, a schema
    /// violation without an ``answer(invalid:violation:)``, `oversized`, `id_reused`,
    /// `processing_failed`), sent after its rejected record; e.g. `status: rejected` with
    /// ``RefusedMessage/resultReason``. Nil (the default) when the input's topic has no result
    /// topic. Never called for a rejection the processor made with outputs of its own, except
    /// one thrown by ``answer(invalid:violation:)``.
    func answer(refused message: RefusedMessage) throws -> [StageOutput]?

    /// How phase 2 runs: without a transaction (the default), or in one per message or per
    /// batch that also records the inbox (``TransactionalStageProcessor``). The processor
    /// says, not the wiring: the stage takes it from here.
    var unitOfWork: StageUnitOfWork { get }

    /// Whether the same bytes published again as a new record (same id, same topic, another
    /// partition or offset) are refused rather than answered as a redelivery: a signed
    /// command's stage answers a replay once (`replayed_command`) with a security event. Nil
    /// (the default): a redelivery, which gets its first answer again.
    func refuse(resent message: StageMessage) throws -> StageRejection?
}

extension StageProcessor {
    public var unitOfWork: StageUnitOfWork { .none }
    public func answer(invalid message: StageMessage, violation: SchemaViolation) throws -> [StageOutput]? { nil }
    public func answer(refused message: RefusedMessage) throws -> [StageOutput]? { nil }
    public func refuse(resent message: StageMessage) throws -> StageRejection? { nil }
}

extension StageProcessor where Prepared == StageMessage {
    /// Processors without a phase 1 hand the message itself to phase 2.
    public func prepare(_ message: StageMessage, context: StageContext) async throws -> StageMessage { message }
}

/// A processor whose phase 2 has effects in PostgreSQL: each call runs in the unit's open
/// transaction, which also records its messages in the inbox (per message by default; per
/// batch when ``unitOfWork`` says so), and receives that transaction, never nil.
public protocol TransactionalStageProcessor: StageProcessor {
    /// Phase 2 in the unit's transaction: one verdict each, in order. A thrown error rolls the
    /// transaction back and retries as ``StageProcessor/commit(_:context:)`` does.
    func commit(_ batch: [Prepared], in transaction: StageTransaction) async throws -> [StageVerdict]
}

extension TransactionalStageProcessor {
    public var unitOfWork: StageUnitOfWork { .perMessage }

    /// The stage runs a transactional processor's unit in its transaction (``Stage`` takes the
    /// unit of work from the processor), so the transaction is always there.
    public func commit(_ batch: [Prepared], context: StageCommitContext) async throws -> [StageVerdict] {
        guard let connection = context.connection else {
            preconditionFailure("a transactional processor's unit runs in its transaction")
        }
        return try await commit(
            batch,
            in: StageTransaction(
                connection: connection, logger: context.logger, attempt: context.attempt, hooks: context.hooks))
    }
}

/// What phase 2 of a ``TransactionalStageProcessor`` may use: the unit's open transaction.
public struct StageTransaction: Sendable {
    /// The unit's open transaction; the processor's effects belong in it.
    public let connection: PostgresConnection
    /// The stage's logger.
    public let logger: Logger
    /// How many times this call was attempted before (0 the first time).
    public let attempt: Int
    /// What runs once this transaction has committed.
    public let hooks: StageCommitHooks

    public init(connection: PostgresConnection, logger: Logger, attempt: Int = 0, hooks: StageCommitHooks = .init()) {
        self.connection = connection
        self.logger = logger
        self.attempt = attempt
        self.hooks = hooks
    }

    /// Runs `body` once this transaction has committed; never if it rolls back.
    public func afterCommit(_ body: @escaping @Sendable () -> Void) { hooks.afterCommit(body) }
}

/// What phase 1 may use.
public struct StageContext: Sendable {
    private let base: Logger
    private let source: (message: KafkaMessage, id: MessageID)?
    /// How many times this message was attempted before (0 the first time).
    public let attempt: Int
    /// The stage's pool, for reads; effects belong in phase 2.
    public let pool: PostgresPool?

    public init(logger: Logger, attempt: Int = 0, pool: PostgresPool? = nil) {
        base = logger
        source = nil
        self.attempt = attempt
        self.pool = pool
    }

    init(stage logger: Logger, message: KafkaMessage, id: MessageID, attempt: Int, pool: PostgresPool?) {
        base = logger
        source = (message, id)
        self.attempt = attempt
        self.pool = pool
    }

    /// A logger carrying the message's id and source (made when asked for: most messages
    /// never log).
    public var logger: Logger { source.map { base.about($0.message, id: $0.id) } ?? base }
}

/// What phase 2 may use.
public struct StageCommitContext: Sendable {
    /// The unit's open transaction (``StageUnitOfWork/perMessage`` or `perBatch`); nil without
    /// one. A ``TransactionalStageProcessor`` gets it non-optional.
    public let connection: PostgresConnection?
    /// The stage's logger.
    public let logger: Logger
    /// How many times this call was attempted before (0 the first time).
    public let attempt: Int
    /// What runs once the unit's transaction has committed (after phase 2 without one).
    public let hooks: StageCommitHooks

    public init(
        connection: PostgresConnection? = nil, logger: Logger, attempt: Int = 0, hooks: StageCommitHooks = .init()
    ) {
        self.connection = connection
        self.logger = logger
        self.attempt = attempt
        self.hooks = hooks
    }
}

/// What became of one message.
public enum StageVerdict: Sendable {
    /// Processed: send these (possibly none).
    case outputs([StageOutput])
    /// Bad input: the message goes to the rejected topic with this reason, followed by the
    /// rejection's own outputs (e.g. a security event about it).
    case rejected(StageRejection)
}
