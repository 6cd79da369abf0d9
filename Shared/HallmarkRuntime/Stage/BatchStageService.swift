import Foundation
import HallmarkEnvelope
import HallmarkKafka
import Logging
import ServiceLifecycle

/// A stage loop that processes batches: consume → check envelopes → process the batch →
/// enqueue every output at once → on their acknowledgement, store the offsets.
///
/// Partitions are shared out among ``StageConfiguration/batchWorkers`` workers; each takes
/// whatever its partitions have waiting (up to ``StageConfiguration/maxBatch``) as one
/// batch, so messages of a partition (and so of a key) keep their order. While a batch's
/// outputs await acknowledgement the next batch is processed (up to
/// ``StageConfiguration/batchesInFlight``); offsets are stored only once outputs are
/// acknowledged, so delivery is at least once. A batch that keeps failing is retried one
/// message at a time, so a poison message is rejected alone. Bad input goes to the rejected
/// topic. Graceful shutdown works as in ``StageService``.
public final class BatchStageService<Processor: BatchStageProcessor>: Service, Sendable {
    let core: StageCore
    let processor: Processor

    public init(configuration: StageConfiguration, kafka: KafkaConfiguration, producer: KafkaProducer,
                processor: Processor, logger: Logger) {
        core = StageCore(configuration: configuration, kafka: kafka, producer: producer, logger: logger)
        self.processor = processor
    }

    var configuration: StageConfiguration { core.configuration }
    var metrics: StageMetrics { core.metrics }

    public func run() async throws {
        let workers = max(1, configuration.batchWorkers)
        let consumer = try core.makeConsumer(bufferCapacity: max(64, configuration.maxBatch * 4))
        try await core.run(consumer) { await consumeAll(from: consumer, workers: workers) }
    }

    private func consumeAll(from consumer: KafkaConsumer, workers: Int) async {
        // A fetch brings one partition's messages in a run of thousands: each worker's queue
        // holds several batches so the others are not starved while one catches up.
        let queues = (0..<workers).map { _ in MessageBatchQueue(capacity: max(64, configuration.maxBatch * 4)) }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.core.reportLag(of: consumer) }
            for queue in queues { group.addTask { await self.work(queue, consumer: consumer) } }
            for await message in consumer.messages {
                // After shutdown began, fetched messages are left for the next consumer.
                if core.isStopping { continue }
                guard core.begin(message) else { continue }
                metrics.inFlight.increment()
                await queues[worker(for: message, count: workers)].put(message)
            }
            core.stopping.store(true, ordering: .releasing)
            queues.forEach { $0.finish() }
        }
    }

    /// A partition always goes to the same worker; consecutive partitions to different ones.
    private func worker(for message: KafkaMessage, count: Int) -> Int {
        let topic = configuration.inputTopics.firstIndex(of: message.topic) ?? 0
        return (topic + Int(message.partition) & Int.max) % count
    }

    private func work(_ queue: MessageBatchQueue, consumer: KafkaConsumer) async {
        let pending = AsyncPermits(max(1, configuration.batchesInFlight))
        await withDiscardingTaskGroup { group in
            while let batch = await queue.take(limit: configuration.maxBatch) {
                let start = ContinuousClock.now
                metrics.batchSize.record(batch.count)
                guard let (outputs, processed) = await outputs(for: batch) else {
                    batch.forEach(core.abandon)
                    metrics.inFlight.decrement(by: Double(batch.count))
                    continue
                }
                metrics.processingTime.recordNanoseconds((ContinuousClock.now - start).nanoseconds)
                await pending.acquire()
                // Enqueued here, in batch order; only the wait for acknowledgements overlaps.
                let delivery = try? await core.producer.enqueue(outputs)
                group.addTask {
                    defer { pending.release() }
                    await self.confirm(batch, outputs: outputs, delivery: delivery, processed: processed,
                                       consumer: consumer)
                }
            }
        }
    }

    /// Waits for the batch's acknowledgements (re-sending on failure), then stores offsets.
    private func confirm(_ batch: [KafkaMessage], outputs: [KafkaOutgoingMessage], delivery: KafkaDeliveryGroup?,
                         processed: Int, consumer: KafkaConsumer) async {
        defer { metrics.inFlight.decrement(by: Double(batch.count)) }
        var delivered = false
        if let delivery { delivered = (try? await delivery.wait()) != nil }
        if !delivered { delivered = await core.deliver(outputs, core.logger) }
        guard delivered else { return batch.forEach(core.abandon) }
        core.finish(batch, consumer: consumer)
        metrics.processed.increment(by: processed)
    }

    /// The outputs of a batch (rejected records included) and how many messages were
    /// processed; nil when shutdown's grace ran out while retrying.
    private func outputs(for batch: [KafkaMessage]) async -> ([KafkaOutgoingMessage], Int)? {
        var outgoing: [KafkaOutgoingMessage] = []
        var accepted: [StageMessage] = []
        for message in batch {
            switch core.intake(message, schemas: processor.schemas) {
            case .success(let m): accepted.append(m)
            case .failure(let refusal): outgoing.append(core.rejectedOutput(message, refusal, core.logger(for: message, id: refusal.id)))
            }
        }
        guard !accepted.isEmpty else { return (outgoing, 0) }
        guard let verdicts = await verdicts(for: accepted) else { return nil }
        var processed = 0
        for (message, verdict) in zip(accepted, verdicts) {
            switch verdict {
            case .outputs(let outputs):
                processed += 1
                outgoing += outputs
            case .rejected(let r):
                let refusal = StageCore.Refusal(id: message.header.id, reason: r.reason, detail: r.detail)
                outgoing.append(core.rejectedOutput(message.kafka, refusal,
                                                    core.logger(for: message.kafka, id: message.header.id)))
            }
        }
        return (outgoing, processed)
    }

    /// One verdict per message. Transient failures retry the batch; a batch that keeps
    /// failing otherwise is split into single messages, and a single message that keeps
    /// failing is rejected as `processing_failed`. Nil when shutdown's grace ran out.
    private func verdicts(for batch: [StageMessage], attempts: Int? = nil) async -> [StageVerdict]? {
        let attempts = attempts ?? configuration.maxAttempts
        var attempt = 0
        while true {
            do {
                let verdicts = try await processor.process(batch, context: StageBatchContext(logger: core.logger,
                                                                                              attempt: attempt))
                guard verdicts.count == batch.count else {
                    throw StageRejection(.processingFailed, "\(verdicts.count) verdicts for \(batch.count) messages")
                }
                return verdicts
            } catch {
                attempt += 1
                let transient = ErrorPolicy.isTransient(error)
                if !transient && attempt >= attempts {
                    if batch.count > 1 {
                        var all: [StageVerdict] = []
                        for message in batch {
                            // The batch already failed enough: each message gets two tries.
                            guard let one = await verdicts(for: [message], attempts: 2) else { return nil }
                            all += one
                        }
                        return all
                    }
                    return [.rejected(Self.rejection(for: error, attempts: attempt))]
                }
                if core.pastShutdownGrace { return nil }
                metrics.retries.increment()
                core.logger.warning("batch failed; retrying", metadata: [
                    "messages": "\(batch.count)", "attempt": "\(attempt)", "transient": "\(transient)",
                    "error": "\(ErrorPolicy.safeDescription(error))",
                ])
                try? await Task.sleep(for: core.backoff(attempt))
            }
        }
    }

    private static func rejection(for error: any Error, attempts: Int) -> StageRejection {
        if let r = error as? StageRejection { return r }
        if let e = error as? EnvelopeError { return StageRejection(e.code, e.reason) }
        return StageRejection(.processingFailed, "failed \(attempts) times: \(ErrorPolicy.safeDescription(error))")
    }
}

