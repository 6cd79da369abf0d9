import Foundation
import HallmarkCore
import HallmarkCrypto
import Logging
import Metrics
import ServiceLifecycle

/// PBKDF2 on dedicated threads (one per core by default), never on Swift's cooperative pool,
/// so derivations (milliseconds with SHA-NI, hundreds without) do not starve the tasks that
/// consume, produce and commit.
///
/// Callers from many messages submit derivations; each worker takes up to `batchSize` queued
/// derivations at once and runs them through `PBKDF2.deriveBatch` (the SHA-NI kernel
/// interleaves pairs; elsewhere a batch runs in turn, so `PBKDF2.preferredBatch` is the
/// size to use), and throughput comes from having many messages in flight.
/// A `Service`: `run` starts the threads and, on shutdown, stops them and fails what is queued.
public final class PBKDF2WorkerPool: Service, Sendable {
    public let workers: Int
    /// The service whose metrics these are.
    public let service: String
    public let batchSize: Int
    /// How long a worker holding one derivation waits for a second to pair it with: 2 ms where
    /// the SHA-NI kernel interleaves a pair, none where a pair runs in turn and gains nothing.
    public var pairWait: Duration { .milliseconds(Int64(queue.pairWait * 1000)) }
    let queue: WorkQueue
    let logger: Logger
    private let derivationTime: Timer
    private let derivations: Counter
    private let queued: Meter

    public init(workers: Int, batchSize: Int, service: String, logger: Logger) {
        self.service = service
        self.workers = max(1, workers)
        self.batchSize = max(1, batchSize)
        self.logger = logger
        queue = WorkQueue(pairWait: PBKDF2.hasSHAExtensions && batchSize >= 2 ? 0.002 : 0)
        let dims = [("service", service)]
        derivationTime = Timer(label: "hallmark_smileid_pbkdf2_batch_ns", dimensions: dims)
        derivations = Counter(label: "hallmark_smileid_pbkdf2_derivations_total", dimensions: dims)
        queued = Meter(label: "hallmark_smileid_pbkdf2_queued", dimensions: dims)
    }

    /// Derives `requests` (results in order) on the workers.
    public func derive(_ requests: [PBKDF2.Request]) async throws -> [Data] {
        guard !requests.isEmpty else { return [] }
        return try await withCheckedThrowingContinuation { continuation in
            let job = WorkQueue.Job(requests: requests, continuation: continuation)
            if !queue.enqueue(job) {
                continuation.resume(throwing: SmileIDError(.derivation, "the PBKDF2 pool is stopped"))
            }
            queued.set(queue.depth)
        }
    }

    public func run() async throws {
        for index in 0..<workers {
            let thread = Thread { [self] in workLoop() }
            thread.name = "pbkdf2-\(index)"
            thread.start()
        }
        logger.info("pbkdf2 pool started", metadata: ["workers": "\(workers)", "batch": "\(batchSize)"])
        // Sleep until shutdown; the threads do the work.
        try? await gracefulShutdown()
        queue.stop(failing: SmileIDError(.derivation, "the PBKDF2 pool stopped"))
    }

    /// Starts the threads outside a service group (benchmarks, tests); `stop` ends them.
    public func startDetached() {
        for _ in 0..<workers { Thread { [self] in workLoop() }.start() }
    }

    public func stop() {
        queue.stop(failing: SmileIDError(.derivation, "the PBKDF2 pool stopped"))
    }

    private func workLoop() {
        while let batch = queue.take(max: batchSize) {
            guard !batch.isEmpty else { continue }  // another worker took the item meanwhile
            let start = ContinuousClock.now
            let outcome: Result<[Data], any Error>
            do {
                outcome = .success(try PBKDF2.deriveBatch(batch.map { $0.job.requests[$0.index] }, backend: .fast))
            } catch {
                outcome = .failure(SmileIDError(.derivation, "PBKDF2 derivation failed"))
            }
            derivationTime.recordNanoseconds((ContinuousClock.now - start).nanoseconds)
            derivations.increment(by: batch.count)
            queue.complete(batch, with: outcome)
            queued.set(queue.depth)
        }
    }
}
