import Foundation

/// The jobs of a task executor that runs them on one thread of its own choosing: enqueued from
/// any thread, run in order by ``drive(on:)`` on the thread that calls it, until ``finish()``
/// has been called and none is left.
package final class JobQueue: @unchecked Sendable {
    // @unchecked: `jobs` and `finished` are only touched under `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    package init() {}

    package func enqueue(_ job: UnownedJob) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets ``drive(on:)`` return once the jobs already enqueued have run.
    package func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    /// Runs jobs on `executor`'s behalf, in the order they came, until ``finish()`` was called
    /// and none is left; waits while there is none.
    package func drive(on executor: UnownedTaskExecutor) {
        var batch: [UnownedJob] = []
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch { job.runSynchronously(on: executor) }
            batch.removeAll(keepingCapacity: true)
        }
    }
}
