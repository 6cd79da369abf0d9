import Foundation
import HallmarkEnvelope
import HallmarkKafka
import Logging
import ServiceLifecycle
import Synchronization

/// What every stage loop shares, whatever it processes one message or a batch at a time:
/// offset tracking across rebalances, the lag gauge, envelope intake, rejected records,
/// backoff and the shutdown state.
final class StageCore: Sendable {
    let configuration: StageConfiguration
    let kafka: KafkaConfiguration
    let producer: KafkaProducer
    let logger: Logger
    let metrics: StageMetrics
    let tracker = Mutex(OffsetTracker())
    let stopping = Atomic<Bool>(false)
    let shutdownDeadline = Mutex<ContinuousClock.Instant?>(nil)

    init(configuration: StageConfiguration, kafka: KafkaConfiguration, producer: KafkaProducer, logger: Logger) {
        self.configuration = configuration
        self.kafka = kafka
        self.producer = producer
        self.logger = logger
        self.metrics = StageMetrics(service: configuration.service)
    }

    /// A consumer of the input topics whose rebalances go through the tracker.
    func makeConsumer(bufferCapacity: Int) throws -> KafkaConsumer {
        try KafkaConsumer(configuration: kafka, groupID: configuration.groupID, topics: configuration.inputTopics,
                          bufferCapacity: bufferCapacity, logger: logger,
                          rebalanceListener: { [self] event in rebalanced(event) })
    }

    /// Runs `body` (the consuming loop) until the consumer's messages end, starting a
    /// graceful close on shutdown or cancellation, then closes the consumer.
    func run(_ consumer: KafkaConsumer, _ body: () async -> Void) async throws {
        try consumer.start()
        logger.info("stage started", metadata: [
            "topics": "\(configuration.inputTopics)", "group": "\(configuration.groupID)",
            "max_in_flight": "\(configuration.maxInFlight)",
        ])
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await body()
            } onGracefulShutdown: { [self] in
                beginShutdown(consumer)
            }
        } onCancel: { [self] in
            beginShutdown(consumer)
        }
        await consumer.close()
        logger.info("stage stopped", metadata: ["in_flight": "\(tracker.withLock { $0.inFlight() })"])
    }

    var isStopping: Bool { stopping.load(ordering: .acquiring) }

    private func beginShutdown(_ consumer: KafkaConsumer) {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        shutdownDeadline.withLock { $0 = .now + configuration.shutdownGrace }
        logger.info("stopping: finishing in-flight messages")
        // Closing revokes the partitions; the revocation waits for in-flight messages and
        // commits their offsets before the consumer leaves the group.
        consumer.beginClose()
    }

    /// Starts tracking a fetched message; false for a stale one (skip it).
    func begin(_ message: KafkaMessage) -> Bool {
        let began = tracker.withLock {
            $0.begin(message.topicPartition, offset: message.offset, generation: message.generation)
        }
        if !began { metrics.stale.increment() }
        return began
    }

    /// Marks messages finished and stores each partition's new low-water mark.
    func finish(_ messages: some Sequence<KafkaMessage>, consumer: KafkaConsumer) {
        var next: [KafkaTopicPartition: Int64] = [:]
        tracker.withLock { t in
            for m in messages {
                if let n = t.finish(m.topicPartition, offset: m.offset, generation: m.generation) {
                    next[m.topicPartition] = n
                }
            }
        }
        for (partition, offset) in next {
            do {
                try consumer.storeOffset(partition, nextOffset: offset)
            } catch {
                logger.warning("offset not stored", metadata: [
                    "partition": "\(partition)", "error": "\(ErrorPolicy.safeDescription(error))",
                ])
            }
        }
    }

    /// Gives up on a message at shutdown: never store past it, so the next owner re-reads it.
    func abandon(_ message: KafkaMessage) {
        tracker.withLock { $0.revoke(message.topicPartition) }
        logger.warning("message left unprocessed at shutdown", metadata: source(of: message))
    }

    /// Every 2 s, sets the lag gauge: messages between each partition's lowest unfinished
    /// offset and its end. Checks for shutdown often so it never delays it.
    func reportLag(of consumer: KafkaConsumer) async {
        var tick = 0
        while !isStopping {
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

    /// The stage's logger carrying a message's source (and its id, when known).
    func logger(for message: KafkaMessage, id: String? = nil) -> Logger {
        var log = logger
        for (k, v) in source(of: message) { log[metadataKey: k] = v }
        if let id { log[metadataKey: "message_id"] = "\(id)" }
        return log
    }

    func source(of message: KafkaMessage) -> Logger.Metadata {
        ["topic": "\(message.topic)", "partition": "\(message.partition)", "offset": "\(message.offset)"]
    }

    var pastShutdownGrace: Bool {
        guard isStopping else { return false }
        return shutdownDeadline.withLock { $0.map { ContinuousClock.now >= $0 } ?? false }
    }

    func backoff(_ attempt: Int) -> Duration {
        let factor = 1 << min(attempt - 1, 16)
        return min(configuration.initialBackoff * factor, configuration.maxBackoff)
    }
}
