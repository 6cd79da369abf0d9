import Foundation
import HallmarkCrypto

/// The PBKDF2 pool's queue: jobs split into single derivations that workers take in batches.
/// Guarded by an `NSCondition` because workers are plain threads that block while it is empty.
final class WorkQueue: @unchecked Sendable {
    /// One caller's derivations; resumed once all are done (or on the first failure).
    final class Job {
        let requests: [PBKDF2.Request]
        var results: [Data?]
        var remaining: Int
        var continuation: CheckedContinuation<[Data], any Error>?

        init(requests: [PBKDF2.Request], continuation: CheckedContinuation<[Data], any Error>) {
            self.requests = requests
            results = Array(repeating: nil, count: requests.count)
            remaining = requests.count
            self.continuation = continuation
        }
    }

    struct Item {
        let job: Job
        let index: Int
    }

    private let condition = NSCondition()
    private var items: [Item] = []
    private var head = 0
    private var stopped = false
    /// How long a worker with a single queued derivation waits for a second one.
    let pairWait: TimeInterval

    init(pairWait: TimeInterval) {
        self.pairWait = pairWait
    }

    var depth: Int {
        condition.lock()
        defer { condition.unlock() }
        return items.count - head
    }

    /// False when stopped (the caller fails the job itself).
    func enqueue(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return false }
        for i in job.requests.indices { items.append(Item(job: job, index: i)) }
        condition.broadcast()
        return true
    }

    /// Blocks until work is queued; nil once stopped.
    func take(max: Int) -> [Item]? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !stopped { condition.wait() }
        // One derivation alone costs ~1.6× one of an interleaved pair: wait briefly for a partner.
        if pairWait > 0 && max >= 2 && items.count - head == 1 && !stopped {
            _ = condition.wait(until: Date().addingTimeInterval(pairWait))
        }
        guard !stopped, head < items.count else { return stopped ? nil : [] }
        let end = min(items.count, head + max)
        let batch = Array(items[head..<end])
        head = end
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 4096 {
            items.removeFirst(head)
            head = 0
        }
        return batch
    }

    func complete(_ batch: [Item], with outcome: Result<[Data], any Error>) {
        var finished: [(CheckedContinuation<[Data], any Error>, Result<[Data], any Error>)] = []
        condition.lock()
        for (n, item) in batch.enumerated() {
            let job = item.job
            guard let continuation = job.continuation else { continue }
            switch outcome {
            case .success(let keys):
                job.results[item.index] = keys[n]
                job.remaining -= 1
                if job.remaining == 0 {
                    job.continuation = nil
                    finished.append((continuation, .success(job.results.map { $0! })))
                }
            case .failure(let error):
                job.continuation = nil
                finished.append((continuation, .failure(error)))
            }
        }
        condition.unlock()
        for (continuation, result) in finished { continuation.resume(with: result) }
    }

    func stop(failing error: any Error) {
        condition.lock()
        stopped = true
        let pending = items[head...]
        items = []
        head = 0
        var continuations: [CheckedContinuation<[Data], any Error>] = []
        for item in pending {
            if let c = item.job.continuation {
                item.job.continuation = nil
                continuations.append(c)
            }
        }
        condition.broadcast()
        condition.unlock()
        for c in continuations { c.resume(throwing: error) }
    }
}
