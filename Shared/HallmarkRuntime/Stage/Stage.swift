import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import Logging
import ServiceLifecycle
import Synchronization

/// The one stage loop every Hallmark stage runs: consume → check size, envelope and schema →
/// phase 1 (outside any transaction) → phase 2 (effects, in the unit of work's transaction) →
/// produce the outputs → on the broker's acknowledgement, store the offsets.
///
/// What varies is configuration (``StageConfiguration``): the dispatch — per-key lanes, or
/// per-partition batches — and the unit of work — no transaction, one per message, or one per
/// batch. Whatever the choice:
/// - **At least once, effects once.** An offset is stored only after its message's outputs
///   are acknowledged. A transactional stage records each message in its inbox with its
///   outputs, in the transaction of its effects, so a redelivery gets those outputs again and
///   never re-applies the effects, and an id reused for other content or on another topic is
///   refused `id_reused`; without a transaction, effects must be idempotent by
///   message id. Output ids are derived from input ids, so consumers can drop duplicates.
/// - **Order.** Messages of one key (lanes) or one partition (batches) are processed in order.
/// - **Nothing is dropped, nothing stalls.** Bad input, inputs whose outputs would be too
///   large, and messages that keep failing go to the rejected topic with a reason; a full
///   lane pauses only its own partition.
/// - **Graceful shutdown.** On SIGTERM it stops consuming, finishes what is in flight (retrying
///   transient failures for at most ``StageConfiguration/shutdownGrace``), stores and commits
///   offsets, and leaves the group.
public final class Stage<Processor: StageProcessor>: Service, SharedConsumerMember, Sendable {
    let configuration: StageConfiguration
    let transport: StageTransport
    /// Where outputs go (the transport's sink).
    let producer: any StageSink
    let database: StageDatabase?
    let processor: Processor
    let logger: Logger
    let metrics: StageMetrics
    let inbox: Inbox?
    let tracker = Mutex(OffsetTracker())
    let stopping = Atomic<Bool>(false)
    /// Batches at work, for the batch workers' group commit.
    let activity = BatchActivity()
    let shutdownDeadline = Mutex<ContinuousClock.Instant?>(nil)
    /// Set while running, for the rebalance listener.
    let dispatcher = Mutex<StageDispatcher?>(nil)
    /// Schemas accepted per input topic.
    let accepted: [String: Set<String>]
    /// Where the stage reports its liveness while it runs (``HealthMonitor``).
    let health: HealthMonitor?
    /// When it last finished a message, or started (``Uptime/now()``).
    let lastProgress = Atomic<UInt64>(0)

    /// - Parameters:
    ///   - database: the stage's schema and pool; required by a transactional unit of work.
    ///   - health: where to report liveness while running, if anywhere.
    public convenience init(
        configuration: StageConfiguration, kafka: KafkaConfiguration, producer: KafkaProducer,
        database: StageDatabase?, processor: Processor, logger: Logger, health: HealthMonitor? = nil
    ) {
        self.init(
            configuration: configuration, transport: .kafka(kafka, producer: producer, logger: logger),
            database: database, processor: processor, logger: logger, health: health)
    }

    /// A stage over any source and sink (``StageTransport``), e.g. an in-memory pair in tests.
    public init(
        configuration: StageConfiguration, transport: StageTransport,
        database: StageDatabase?, processor: Processor, logger: Logger, health: HealthMonitor? = nil
    ) {
        precondition(processor.unitOfWork == .none || database != nil, "a transactional stage needs its database")
        self.configuration = configuration
        self.transport = transport
        producer = transport.sink
        self.database = database
        self.processor = processor
        self.logger = logger
        self.health = health
        metrics = StageMetrics(service: configuration.service, group: configuration.groupID)
        let transactional = processor.unitOfWork != .none
        inbox = transactional ? database.map { Inbox(schema: $0.schema, keyring: $0.outputKeyring) } : nil
        accepted = Dictionary(configuration.inputs.map { ($0.topic, $0.schemas) }, uniquingKeysWith: { $0.union($1) })
    }

    public func run() async throws {
        let lanes = configuration.dispatch == .keyLanes
        let slots = lanes ? max(1, configuration.maxInFlight * 2) : max(1, configuration.batchWorkers)
        // Batch workers hold what awaits acknowledgement too; lanes hold one message at work.
        let depth = lanes ? configuration.laneDepth : configuration.maxBatch * (configuration.batchesInFlight + 1)
        let maxInFlight = lanes ? configuration.maxInFlight : slots * depth
        let member = sourceShape
        let consumer = try transport.source(
            StageSourceRequest(
                groupID: member.groupID, topics: member.topics, bufferCapacity: member.bufferCapacity,
                wakesOnProduce: member.wakesOnProduce, rebalanceListener: { [self] event in rebalanced(event) }))
        let dispatcher = StageDispatcher(
            slots: slots, depth: depth, maxInFlight: maxInFlight, maxBytes: Self.maxInFlightBytes,
            routing: lanes ? .exclusiveKeys : .fixed { [configuration] in Self.worker(of: $0, count: slots, configuration) },
            pause: { [consumer, metrics] in
                consumer.pause($0); metrics.pausedPartitions.increment(by: Double($0.count))
            },
            resume: { [consumer, metrics] in
                consumer.resume($0); metrics.pausedPartitions.decrement(by: Double($0.count))
            })
        self.dispatcher.withLock { $0 = dispatcher }
        try consumer.start()
        lastProgress.store(Uptime.now(), ordering: .relaxed)
        let registration = health?.register(
            { [self, consumer] in
                HealthMonitor.StageState(
                    name: configuration.groupID, sinceLastPoll: consumer.sinceLastPoll,
                    inFlight: tracker.withLock { $0.inFlight() },
                    sinceProgress: Uptime.since(lastProgress.load(ordering: .relaxed)))
            }, verdict: { [metrics] in metrics.stalled.set($0 ? 1 : 0) })
        logger.info(
            "stage started",
            metadata: [
                "topics": "\(configuration.inputTopics)", "group": "\(configuration.groupID)",
                "dispatch": "\(configuration.dispatch)", "unit_of_work": "\(processor.unitOfWork)",
                "max_in_flight": "\(maxInFlight)",
            ])
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await consumeAll(consumer, dispatcher, slots: slots)
            } onGracefulShutdown: { [self] in
                beginShutdown(consumer)
            }
        } onCancel: { [self] in
            beginShutdown(consumer)
        }
        await consumer.close()
        registration.map { health?.unregister($0) }
        self.dispatcher.withLock { $0 = nil }
        logger.info("stage stopped", metadata: ["in_flight": "\(tracker.withLock { $0.inFlight() })"])
    }

    /// The group it reads in on its own.
    public var consumerGroup: String { configuration.groupID }

    /// What the stage asks of a shared consumer: partition batches only. A stage of key lanes
    /// stops taking messages whenever `HALLMARK_MAX_IN_FLIGHT` are at work, so in a shared
    /// consumer its buffer would fill and its partitions be paused and resumed all along, and
    /// librdkafka drops what it had fetched of a partition at every pause: against a backlog
    /// that fetched it again and again (a 10,000-message test of the probe did not finish in
    /// seven minutes). On a consumer of its own, the poll thread waits for it instead.
    public var consumerMember: SharedConsumer.Member? {
        configuration.dispatch == .partitionBatches ? sourceShape : nil
    }

    /// What the stage's source is: its group, topics and buffer.
    var sourceShape: SharedConsumer.Member {
        let lanes = configuration.dispatch == .keyLanes
        return SharedConsumer.Member(
            groupID: configuration.groupID, topics: configuration.inputTopics,
            bufferCapacity: lanes ? max(64, configuration.maxInFlight * 2) : max(64, configuration.maxBatch * 4),
            wakesOnProduce: configuration.wakesOnProduce)
    }

    /// Memory held by messages in flight at most (parked ones included); a single larger
    /// message is still let in alone.
    static var maxInFlightBytes: Int { 256 << 20 }

    private func consumeAll<Source: StageSource>(_ consumer: Source, _ dispatcher: StageDispatcher, slots: Int) async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.reportLag(of: consumer) }
            for slot in 0..<slots {
                group.addTask {
                    if self.configuration.dispatch == .keyLanes {
                        await self.runLane(slot, dispatcher, consumer)
                    } else {
                        await self.runBatches(slot, dispatcher, consumer)
                    }
                }
            }
            for await message in consumer.messages {
                // After shutdown began, fetched messages are left for the next consumer.
                if isStopping { continue }
                guard begin(message) else { continue }
                metrics.inFlight.increment()
                await dispatcher.put(message)
            }
            // The stream ends only after shutdown began; make sure every helper task sees it.
            stopping.store(true, ordering: .releasing)
            let parked = dispatcher.dropParked()
            parked.forEach(abandon)
            released(parked: parked)
            dispatcher.finish()
        }
    }

    /// Key lanes: one message at a time, acknowledged before the lane's next.
    private func runLane(_ slot: Int, _ dispatcher: StageDispatcher, _ consumer: any StageSource) async {
        while let messages = await dispatcher.take(slot: slot, limit: 1) {
            let start = ContinuousClock.now
            if let unit = await execute(messages), await deliver(unit) {
                finish(unit, consumer)
            } else {
                messages.forEach(abandon)
            }
            metrics.processingTime.recordNanoseconds((ContinuousClock.now - start).nanoseconds)
            metrics.inFlight.decrement(by: Double(messages.count))
            dispatcher.done(slot: slot, messages: messages)
        }
    }

    /// Partition batches: while a batch's outputs await acknowledgement, the next is processed.
    private func runBatches(_ slot: Int, _ dispatcher: StageDispatcher, _ consumer: any StageSource) async {
        let pending = AsyncSemaphore(max(1, configuration.batchesInFlight))
        await withDiscardingTaskGroup { group in
            var pace = BatchPace(interval: configuration.batchPace)
            while var batch = await dispatcher.take(slot: slot, limit: configuration.maxBatch) {
                if batch.count < configuration.maxBatch, !isStopping, let due = pace.due(at: .now) {
                    // A stream keeps this worker busy: the batch takes what arrives until the
                    // pace is due rather than a transaction per message.
                    try? await Task.sleep(until: due)
                    batch += dispatcher.takeReady(slot: slot, limit: configuration.maxBatch - batch.count)
                }
                pace.started(at: .now)
                if configuration.batchLinger > .zero, batch.count < configuration.maxBatch, !isStopping {
                    // Group commit: while another batch is at work, wait for it and take what
                    // arrived meanwhile. Else, below saturation, every message would pay a
                    // batch's fixed cost (a transaction), and that cost is what then queues.
                    await activity.nextCompletion(atMost: configuration.batchLinger)
                    batch += dispatcher.takeReady(slot: slot, limit: configuration.maxBatch - batch.count)
                }
                let start = ContinuousClock.now
                metrics.batchSize.record(batch.count)
                activity.begin()
                let unit = await execute(batch)
                activity.end()
                metrics.processingTime.recordNanoseconds((ContinuousClock.now - start).nanoseconds)
                await pending.acquire()
                // Enqueued here, in batch order; only the wait for acknowledgements overlaps.
                var delivery: (any StageDelivery)?
                if let unit { delivery = try? await producer.enqueue(unit.outputs) }
                group.addTask {
                    defer {
                        pending.release()
                        self.metrics.inFlight.decrement(by: Double(batch.count))
                        dispatcher.done(slot: slot, messages: batch)
                    }
                    if let unit, await self.deliver(unit, enqueued: delivery) {
                        self.finish(unit, consumer)
                    } else {
                        batch.forEach(self.abandon)
                    }
                }
            }
        }
    }

    /// A partition always goes to the same worker; consecutive partitions to different ones.
    static func worker(of message: KafkaMessage, count: Int, _ configuration: StageConfiguration) -> Int {
        let topic = configuration.inputTopics.firstIndex(of: message.topic) ?? 0
        return (topic &+ Int(message.partition) & Int.max) % count
    }

    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    private func beginShutdown(_ consumer: any StageSource) {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdownDeadline.withLock { $0 = .now + configuration.shutdownGrace }
        logger.info("stopping: finishing in-flight messages")
        // Closing revokes the partitions; the revocation waits for in-flight messages and
        // commits their offsets before the consumer leaves the group.
        consumer.beginClose()
    }

    var pastShutdownGrace: Bool {
        guard isStopping else { return false }
        return shutdownDeadline.withLock { $0.map { ContinuousClock.now >= $0 } ?? false }
    }

    /// The stage's retries: its pauses, with no limit of their own (each phase decides when to
    /// stop: a rejection, or shutdown's grace).
    var retryPolicy: RetryPolicy {
        var policy = configuration.retry
        policy.maxAttempts = nil
        return policy
    }

    /// The stage's logger carrying a message's source (and its id, when known).
    func logger(for message: KafkaMessage, id: MessageID? = nil) -> Logger { logger.about(message, id: id) }
}
