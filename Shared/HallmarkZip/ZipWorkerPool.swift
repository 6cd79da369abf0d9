import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Dedicated threads for zip work (inflating, CRC, the HMAC over a large signed buffer), so
/// it never runs on Swift's cooperative pool, where it would hold up the tasks that consume,
/// produce and commit (like ``PBKDF2WorkerPool`` for PBKDF2).
///
/// ``perform(_:)`` queues a job and suspends the caller until a thread ran it. The threads
/// start with the first job or with ``run()``; as a `Service`, the pool stops at shutdown
/// and fails what is still queued (``ZipError`` `.unavailable`, not the input's fault).
public final class ZipWorkerPool: Service, Sendable {
    public let workers: Int
    let logger: Logger
    private let condition = NSCondition()
    private let state = Mutex(State())

    struct Job {
        let work: @Sendable () -> Void
        let fail: @Sendable (any Error) -> Void
    }

    struct State {
        var jobs: [Job] = []
        var head = 0
        var started = false
        var stopped = false
    }

    public init(workers: Int, logger: Logger) {
        self.workers = max(1, workers)
        self.logger = logger
    }

    /// Runs `work` on a pool thread and returns (or throws) what it did.
    public func perform<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        startThreads()
        return try await withCheckedThrowingContinuation { continuation in
            let job = Job(
                work: { continuation.resume(with: Result { try work() }) },
                fail: { continuation.resume(throwing: $0) })
            condition.lock()
            let accepted = state.withLock { s in
                guard !s.stopped else { return false }
                s.jobs.append(job)
                return true
            }
            condition.signal()
            condition.unlock()
            if !accepted { job.fail(ZipError(.unavailable, "the zip worker pool is stopped")) }
        }
    }

    public func run() async throws {
        startThreads()
        logger.info("zip pool started", metadata: ["workers": "\(workers)"])
        try? await gracefulShutdown()
        stop()
    }

    /// Stops the threads (after their current job) and fails the queued jobs.
    public func stop() {
        condition.lock()
        let pending: [Job] = state.withLock { s in
            s.stopped = true
            let pending = Array(s.jobs[s.head...])
            s.jobs = []
            s.head = 0
            return pending
        }
        condition.broadcast()
        condition.unlock()
        for job in pending { job.fail(ZipError(.unavailable, "the zip worker pool stopped")) }
    }

    private func startThreads() {
        let start = state.withLock { s in
            guard !s.started, !s.stopped else { return false }
            s.started = true
            return true
        }
        guard start else { return }
        for index in 0..<workers {
            let thread = Thread { [self] in workLoop() }
            thread.name = "zip-\(index)"
            thread.start()
        }
    }

    private func workLoop() {
        while let job = take() { job.work() }
    }

    /// The next job; blocks while there is none; nil once stopped.
    private func take() -> Job? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            let next: Job?? = state.withLock { s in
                if s.stopped { return .some(nil) }
                guard s.head < s.jobs.count else { return nil }
                let job = s.jobs[s.head]
                s.head += 1
                if s.head == s.jobs.count {
                    s.jobs.removeAll(keepingCapacity: true)
                    s.head = 0
                }
                return job
            }
            if let next { return next }
            condition.wait()
        }
    }
}
