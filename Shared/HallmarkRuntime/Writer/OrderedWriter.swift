import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkPostgres
import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// Appends to one log in order, with one writer at a time across every replica: the ordered
/// single writer the transparency log needs.
///
/// - **Leadership** is a PostgreSQL advisory lock held on a connection of its own; the other
///   replicas are hot standbys that try it every ``Configuration/standbyPoll``. A leader that
///   dies (SIGKILL) closes its session, which frees the lock at once.
/// - **Fencing**: taking the lead increments an epoch on the log's head row; every batch
///   locks the head row on that epoch and advances it, in the batch's transaction. A
///   stale leader (one that lost its lock without knowing) finds no head row on its epoch, writes
///   nothing and steps down, so positions can never fork.
/// - **Batches** close at ``Configuration/maxBatch`` items or when the oldest has waited
///   ``Configuration/linger``; a batch's effects commit in one transaction. With no linger (the
///   default) a batch is group commit: the leader takes whatever waits as soon as it is free,
///   so at low load an item waits for one write, and under load batches grow by themselves.
/// - **Outputs after commit**: a batch's outputs are recorded in the same transaction
///   (`hallmark_writer_outbox`: the outputs, or the log's record to make them again from,
///   ``OrderedWriterBatch/outbox``) and sent only after it commits; each new leader first re-sends
///   what its predecessor committed but may not have sent, so nothing is lost (a re-send has
///   the same message ids). Outputs are enqueued in batch order and acknowledged while the next
///   batch is written; only a retried send (after the broker failed a batch) can arrive after a
///   later batch's outputs. An outbox row is named by its own `batch` number, not by its
///   position: a batch that takes no position (every item a duplicate) starts where the next
///   one starts, and both rows can be waiting for the broker at once.
public final class OrderedWriter<Log: OrderedWriterLog>: Service, Sendable {
    /// How the writer batches and watches for the lead.
    public struct Configuration: Sendable, WriterLeaseConfiguration {
        /// The log's name (one writer per name and schema).
        public var name: String
        /// The schema holding the head row and outbox (``migration(schema:)``).
        public var schema: String
        /// Most items per batch. Default 1000.
        public var maxBatch: Int
        /// Longest an item waits for a batch to fill. Default 0: the writer takes what waits as
        /// soon as it is free (group commit).
        public var linger: Duration
        /// The shortest time between the starts of batches while a stream keeps the writer
        /// busy (``BatchPace``): a batch that would start sooner waits out the rest of it, and
        /// after a quiet spell an item goes at once. Default 0: never waits.
        public var pace: Duration
        /// How soon an idle leader looks for waiting items again; each look that finds none
        /// doubles the wait, up to ``longestIdlePoll``. Default 100 ms: the looks only cover a
        /// wake that went astray (items added in the process ring the leader, other replicas'
        /// by a `NOTIFY`), and at 20 ms a thin stream paid four counts per item (10 a second:
        /// 4.1 of the 31.7 statements per bundle).
        public var idlePoll: Duration
        /// The longest wait of an idle leader between looks. Items added in its own process
        /// wake it at once (``OrderedWriter/wake()``), and those of another replica by a
        /// `NOTIFY`, so this only bounds a lost notification. Default 500 ms.
        public var longestIdlePoll: Duration
        /// Committed batches whose outputs may await the broker's acknowledgement while the
        /// next batch is written. Default 4.
        public var sendsInFlight: Int
        /// How often a standby tries to take the lead. Default 250 ms.
        public var standbyPoll: Duration
        /// Service name for metrics and logs.
        public var service: String

        public init(
            name: String, schema: String, service: String, maxBatch: Int = 1000,
            linger: Duration = .zero, pace: Duration = .zero, idlePoll: Duration = .milliseconds(100),
            longestIdlePoll: Duration = .milliseconds(500), standbyPoll: Duration = .milliseconds(250), sendsInFlight: Int = 4
        ) {
            self.name = name
            self.schema = schema
            self.service = service
            self.maxBatch = maxBatch
            self.linger = linger
            self.pace = pace
            self.idlePoll = idlePoll
            self.longestIdlePoll = max(idlePoll, longestIdlePoll)
            self.standbyPoll = standbyPoll
            self.sendsInFlight = sendsInFlight
        }
    }

    let configuration: Configuration
    let log: Log
    let pool: PostgresPool
    let producer: any StageSink
    let logger: Logger
    let metrics: WriterMetrics
    let wakeups = WakeSignal()
    /// Rung by ``wake()`` while another replica leads: tell it over PostgreSQL.
    let tellLeader = WakeSignal()
    /// Whether this replica leads now.
    let leading = Atomic<Bool>(false)

    public init(configuration: Configuration, log: Log, pool: PostgresPool, producer: any StageSink, logger: Logger) {
        self.configuration = configuration
        self.log = log
        self.pool = pool
        self.producer = producer
        self.logger = logger
        metrics = WriterMetrics(service: configuration.service, log: configuration.name)
    }

    /// Items were added (and committed): the leader looks now rather than at its next poll,
    /// whether it is this replica or another (``channel``).
    public func wake() {
        if leading.load(ordering: .acquiring) { wakeups.signal() } else { tellLeader.signal() }
    }

    /// Stands by or leads until shutdown. On SIGTERM a leader finishes the batch in flight
    /// (commit and send), then lets go of the lock, so a standby takes over at once.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.tellLeaderWhenWoken() }
            await standByOrLead()
            group.cancelAll()
        }
    }

    private func standByOrLead() async {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                guard let lease = try await WriterLease.acquire(configuration, pool: pool, logger: logger) else {
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.configuration.standbyPoll) }
                    continue
                }
                metrics.leading.set(1)
                metrics.elections.increment()
                logger.notice("writer leading", metadata: ["log": "\(configuration.name)", "epoch": "\(lease.epoch)"])
                leading.store(true, ordering: .releasing)
                defer {
                    leading.store(false, ordering: .releasing)
                    metrics.leading.set(0)
                }
                try await listening { try await lead(lease) }
            } catch {
                if Task.isShuttingDownGracefully || Task.isCancelled { break }
                logger.warning("writer stepped down", metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.configuration.standbyPoll) }
            }
        }
    }

    /// Writes batches while the lease holds. A batch's outputs are enqueued (in batch order)
    /// as soon as it commits and acknowledged in the background, so the next batch is written
    /// while the broker takes them; at most ``Configuration/sendsInFlight`` batches wait for
    /// acknowledgement. Before the lead is let go, every one of them is acknowledged.
    private func lead(_ lease: WriterLease) async throws {
        try await resendOutbox()
        let window = AsyncSemaphore(max(1, configuration.sendsInFlight))
        let failure = SendFailure()
        try await withThrowingDiscardingTaskGroup { group in
            var oldestSeen: ContinuousClock.Instant?
            var pace = BatchPace(interval: configuration.pace)
            var lastCheck = ContinuousClock.now
            var quietLooks = 0
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                if let error = failure.error { throw error }
                if ContinuousClock.now - lastCheck > .seconds(1) {
                    try await lease.check()
                    lastCheck = .now
                }
                let (maxBatch, linger) = (configuration.maxBatch, configuration.linger)
                if let due = pace.due(at: .now) {
                    // A stream keeps the writer busy: one batch (a transaction, a signed
                    // checkpoint) per pace, not per item.
                    await cancelWhenGracefulShutdown { try? await Task.sleep(until: due) }
                }
                let start = ContinuousClock.now
                let batch = try await writeBatch(
                    lease,
                    closeEarly: { count in
                        if count >= maxBatch { return true }
                        let now = ContinuousClock.now
                        if oldestSeen == nil { oldestSeen = now }
                        return now - oldestSeen! >= linger
                    })
                switch batch {
                case .written(let outputs, let batch, let count):
                    // Paced from the batch's start; a full batch says more waits, so the next
                    // goes at once.
                    if count < maxBatch { pace.started(at: start) } else { pace.reset() }
                    oldestSeen = nil
                    quietLooks = 0
                    metrics.batchSize.record(count)
                    await window.acquire()
                    let enqueued = try? await producer.enqueue(outputs)
                    group.addTask {
                        defer { window.release() }
                        do {
                            try await self.send(outputs, batch: batch, enqueued: enqueued)
                        } catch {
                            // The outbox row stays; the next leader sends it again.
                            failure.record(error)
                        }
                    }
                    // A batch that took less than it could took everything there was: what
                    // came meanwhile rang the bell (or told the leader), so wait for that
                    // rather than count an empty queue after every batch of a slow stream.
                    if count < maxBatch { await waitForWork(configuration.idleWait(afterQuietLooks: 1)) }
                case .waiting(let count):
                    guard count == 0 else {
                        quietLooks = 0
                        await waitForWork(min(configuration.idlePoll, configuration.linger / 4))
                        continue
                    }
                    oldestSeen = nil
                    quietLooks += 1
                    await waitForWork(configuration.idleWait(afterQuietLooks: quietLooks))
                }
            }
        }
        if let error = failure.error { throw error }
    }

    /// A batch written (its outputs, its outbox row's number, its items), or none yet.
    enum BatchOutcome { case written([StageOutput], batch: Int64, count: Int), waiting(Int) }

    /// Counts the waiting items (one statement, outside any transaction: a writer waiting for
    /// its batch to fill looks often), and if the batch may close, reads them and makes the
    /// fenced append in one transaction.
    private func writeBatch(_ lease: WriterLease, closeEarly: @escaping (Int) -> Bool) async throws -> BatchOutcome {
        let count = try await pool.withConnection { try await log.waitingCount(limit: configuration.maxBatch, on: $0) }
        guard count > 0, closeEarly(count) else { return .waiting(count) }
        return try await pool.transaction { connection in
            let items = try await log.waiting(limit: configuration.maxBatch, on: connection)
            guard !items.isEmpty else { return .waiting(0) }
            let start = try await lease.head(on: connection)
            let batch = try await log.append(items, at: start, on: connection)
            try await lease.advance(to: start + Int64(batch.appended), on: connection)
            let outputs = batch.outputs
            // A number of its own: a batch that took no position shares its start with the next.
            // The log's record of its outputs when it keeps one, else the outputs themselves.
            let row = try await connection.query(
                """
                INSERT INTO \(unescaped: configuration.schema).hallmark_writer_outbox (name, position, outputs, record)
                VALUES (\(configuration.name), \(start), \(batch.outbox == nil ? OutboxCodec.encode(outputs) : nil),
                        \(batch.outbox.map { Data($0) }))
                RETURNING batch
                """)
            return .written(outputs, batch: try row[0].column(0, as: Int64.self), count: items.count)
        }
    }

    /// Sends are retried until acknowledged: the log cannot go on without them.
    private static var sendRetry: RetryPolicy { RetryPolicy(initialDelay: .milliseconds(100), maxDelay: .seconds(2)) }

    /// Sends a committed batch's outputs (or waits for those already enqueued) until
    /// acknowledged, then forgets its outbox row.
    func send(_ outputs: [StageOutput], batch: Int64, enqueued: (any StageDelivery)? = nil) async throws {
        var enqueued = enqueued
        try await Self.sendRetry.run { _ in
            if let group = enqueued { try await group.wait() } else { try await producer.send(outputs) }
        } onFailure: { error, _ in
            enqueued = nil
            // A result the broker can never take would stall the log: say so and move on.
            guard ErrorPolicy.isPermanent(error) else { return .retry }
            logger.error("writer outputs refused by the broker", metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
            return .stop(())
        }
        try await pool.execute(
            """
            DELETE FROM \(unescaped: configuration.schema).hallmark_writer_outbox
            WHERE name = \(configuration.name) AND batch = \(batch)
            """)
    }

    private func waitForWork(_ timeout: Duration) async {
        await cancelWhenGracefulShutdown { [wakeups] in await wakeups.wait(timeout: timeout) }
    }
}

/// The first failure of a background send: the leader steps down on it.
private final class SendFailure: Sendable {
    private let first = Mutex<(any Error)?>(nil)
    var error: (any Error)? { first.withLock { $0 } }
    func record(_ error: any Error) { first.withLock { $0 = $0 ?? error } }
}

/// The writer's metrics, created once with fixed dimensions.
struct WriterMetrics: Sendable {
    let leading: Meter
    /// Times this instance became the leader: leadership that keeps moving shows as a rate.
    let elections: Counter
    let batchSize: Recorder

    init(service: String, log: String) {
        let dims = [("service", service), ("log", log)]
        leading = Meter(label: "hallmark_writer_leading", dimensions: dims)
        elections = Counter(label: "hallmark_writer_elections_total", dimensions: dims)
        batchSize = Recorder(label: "hallmark_writer_batch_size", dimensions: dims)
    }
}
