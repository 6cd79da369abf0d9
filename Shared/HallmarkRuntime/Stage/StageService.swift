import Foundation
import HallmarkEnvelope
import HallmarkKafka
import HallmarkPostgres
import Logging
import ServiceLifecycle

/// The stage loop: consume → decode and validate → process → produce outputs → commit the
/// database transaction → store the offset.
///
/// Messages with different keys are processed concurrently (up to `maxInFlight`); messages
/// with one key keep their order. The stored offset of a partition never passes its lowest
/// unfinished message, so delivery is at least once; with a ``StageDatabase`` the effects are
/// idempotent by message id. Bad input goes to the rejected topic and the loop goes on.
/// On graceful shutdown it stops consuming, finishes the messages in flight, commits and
/// leaves the group. For high-volume stages without per-message transactions, see
/// ``BatchStageService``.
public final class StageService<Processor: StageProcessor>: Service, Sendable {
    let core: StageCore
    let database: StageDatabase?
    let processor: Processor
    let permits: AsyncPermits

    public init(configuration: StageConfiguration, kafka: KafkaConfiguration, producer: KafkaProducer,
                database: StageDatabase?, processor: Processor, logger: Logger) {
        core = StageCore(configuration: configuration, kafka: kafka, producer: producer, logger: logger)
        self.database = database
        self.processor = processor
        self.permits = AsyncPermits(configuration.maxInFlight)
    }

    var configuration: StageConfiguration { core.configuration }
    var metrics: StageMetrics { core.metrics }

    public func run() async throws {
        let consumer = try core.makeConsumer(bufferCapacity: max(64, configuration.maxInFlight * 2))
        try await core.run(consumer) { await consumeAll(from: consumer) }
    }

    private func consumeAll(from consumer: KafkaConsumer) async {
        let laneCount = configuration.maxInFlight
        let lanes = (0..<laneCount).map { _ in AsyncStream.makeStream(of: KafkaMessage.self) }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.core.reportLag(of: consumer) }
            for lane in lanes {
                group.addTask {
                    for await message in lane.stream { await self.handle(message, consumer: consumer) }
                }
            }
            for await message in consumer.messages {
                // After shutdown began, fetched messages are left for the next consumer.
                if core.isStopping { continue }
                guard core.begin(message) else { continue }
                await permits.acquire()
                metrics.inFlight.increment()
                lanes[laneIndex(for: message, count: laneCount)].continuation.yield(message)
            }
            // The stream ends only after shutdown began; make sure every helper task sees it.
            core.stopping.store(true, ordering: .releasing)
            lanes.forEach { $0.continuation.finish() }
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
        switch outcome {
        case .finished: core.finish(CollectionOfOne(message), consumer: consumer)
        case .abandoned: core.abandon(message)
        }
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (s, a) = components
        return s * 1_000_000_000 + a / 1_000_000_000
    }
}
