import Foundation
import HallmarkEnvelope
import HallmarkKafka
import HallmarkPostgres
import Logging
import ServiceLifecycle
import Synchronization

/// The stage loop: consume → decode and validate → process → produce outputs → commit the
/// database transaction → store the offset.
///
/// Messages with different keys are processed concurrently (up to `maxInFlight`); messages
/// with one key keep their order. The stored offset of a partition never passes its lowest
/// unfinished message, so delivery is at least once; with a ``StageDatabase`` the effects are
/// idempotent by message id. Bad input goes to the rejected topic and the loop goes on.
/// On graceful shutdown it stops consuming, finishes the messages in flight, commits and
/// leaves the group.
public final class StageService<Processor: StageProcessor>: Service, Sendable {
    let configuration: StageConfiguration
    let kafka: KafkaConfiguration
    let producer: KafkaProducer
    let database: StageDatabase?
    let processor: Processor
    let logger: Logger
    let metrics: StageMetrics
    let tracker = Mutex(OffsetTracker())
    let permits: AsyncPermits
    let stopping = Atomic<Bool>(false)
    let shutdownDeadline = Mutex<ContinuousClock.Instant?>(nil)

    public init(configuration: StageConfiguration, kafka: KafkaConfiguration, producer: KafkaProducer,
                database: StageDatabase?, processor: Processor, logger: Logger) {
        self.configuration = configuration
        self.kafka = kafka
        self.producer = producer
        self.database = database
        self.processor = processor
        self.logger = logger
        self.metrics = StageMetrics(service: configuration.service)
        self.permits = AsyncPermits(configuration.maxInFlight)
    }

    public func run() async throws {
        let consumer = try KafkaConsumer(
            configuration: kafka, groupID: configuration.groupID, topics: configuration.inputTopics,
            bufferCapacity: max(64, configuration.maxInFlight * 2), logger: logger,
            rebalanceListener: { [self] event in rebalanced(event) })
        try consumer.start()
        logger.info("stage started", metadata: [
            "topics": "\(configuration.inputTopics)", "group": "\(configuration.groupID)",
            "max_in_flight": "\(configuration.maxInFlight)",
        ])
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await consumeAll(from: consumer)
            } onGracefulShutdown: { [self] in
                beginShutdown(consumer)
            }
        } onCancel: { [self] in
            beginShutdown(consumer)
        }
        await consumer.close()
        logger.info("stage stopped", metadata: ["in_flight": "\(tracker.withLock { $0.inFlight() })"])
    }

    private func beginShutdown(_ consumer: KafkaConsumer) {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdownDeadline.withLock { $0 = .now + configuration.shutdownGrace }
        logger.info("stopping: finishing in-flight messages")
        // Closing revokes the partitions; the revocation waits for in-flight messages and
        // commits their offsets before the consumer leaves the group.
        consumer.beginClose()
    }

    private func consumeAll(from consumer: KafkaConsumer) async {
        let laneCount = configuration.maxInFlight
        let lanes = (0..<laneCount).map { _ in AsyncStream.makeStream(of: KafkaMessage.self) }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.reportLag(of: consumer) }
            for lane in lanes {
                group.addTask {
                    for await message in lane.stream { await self.handle(message, consumer: consumer) }
                }
            }
            for await message in consumer.messages {
                // After shutdown began, fetched messages are left for the next consumer.
                if stopping.load(ordering: .acquiring) { continue }
                let began = tracker.withLock {
                    $0.begin(message.topicPartition, offset: message.offset, generation: message.generation)
                }
                guard began else {
                    metrics.stale.increment()
                    continue
                }
                await permits.acquire()
                metrics.inFlight.increment()
                lanes[laneIndex(for: message, count: laneCount)].continuation.yield(message)
            }
            // The stream ends only after shutdown began; make sure every helper task sees it.
            stopping.store(true, ordering: .releasing)
            lanes.forEach { $0.continuation.finish() }
        }
    }

    /// Every 2 s, sets the lag gauge: messages between each partition's lowest unfinished
    /// offset and its end. Checks for shutdown often so it never delays it.
    private func reportLag(of consumer: KafkaConsumer) async {
        var tick = 0
        while !stopping.load(ordering: .acquiring) {
            if tick % 20 == 0 {
                let ends = consumer.highWatermarks()
                let marks = tracker.withLock { $0.lowWaterMarks() }
                metrics.consumerLag.set(marks.reduce(Int64(0)) { sum, mark in
                    sum + max(0, (ends[mark.key] ?? mark.value) - mark.value)
                })
            }
            tick += 1
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Same key → same lane → processed in order. Keyless messages spread by offset.
    private func laneIndex(for message: KafkaMessage, count: Int) -> Int {
        guard let key = message.key else { return (Int(truncatingIfNeeded: message.offset) & Int.max) % count }
        var hasher = Hasher()
        hasher.combine(message.topic)
        hasher.combine(key)
        return (hasher.finalize() & Int.max) % count
    }

    private func handle(_ message: KafkaMessage, consumer: KafkaConsumer) async {
        defer {
            metrics.inFlight.decrement()
            permits.release()
        }
        let start = ContinuousClock.now
        let outcome = await process(message)
        metrics.processingTime.recordNanoseconds((ContinuousClock.now - start).nanoseconds)
        let partition = message.topicPartition
        switch outcome {
        case .finished:
            guard let next = tracker.withLock({ $0.finish(partition, offset: message.offset, generation: message.generation) })
            else { return }
            do {
                try consumer.storeOffset(partition, nextOffset: next)
            } catch {
                logger.warning("offset not stored", metadata: ["partition": "\(partition)", "error": "\(ErrorPolicy.safeDescription(error))"])
            }
        case .abandoned:
            // Never store past it: stop tracking the partition so the next owner re-reads it.
            tracker.withLock { $0.revoke(partition) }
            logger.warning("message left unprocessed at shutdown", metadata: source(of: message))
        }
    }

    /// Called on the consumer's poll thread.
    private func rebalanced(_ event: KafkaRebalanceEvent) {
        switch event.kind {
        case .assigned:
            tracker.withLock { t in event.partitions.forEach { t.assign($0, generation: event.generation) } }
        case .revoked:
            let deadline = ContinuousClock.now + configuration.revokeDrainTimeout
            while tracker.withLock({ $0.inFlight(in: event.partitions) }) > 0, ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.005)
            }
            tracker.withLock { t in event.partitions.forEach { t.revoke($0) } }
        }
    }

    func source(of message: KafkaMessage) -> Logger.Metadata {
        ["topic": "\(message.topic)", "partition": "\(message.partition)", "offset": "\(message.offset)"]
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (s, a) = components
        return s * 1_000_000_000 + a / 1_000_000_000
    }
}
