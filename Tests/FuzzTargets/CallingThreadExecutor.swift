import Foundation

/// A task executor whose jobs run on the thread that calls ``drive()``, until ``finish()`` has
/// been called and no job is left (``Blocking``).
///
/// Jobs may be enqueued from any thread: the PBKDF2 pool's workers resume the tasks waiting on
/// them from theirs.
final class CallingThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` and `finished` are only touched under `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Lets ``drive()`` return once the jobs already enqueued have run.
    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    /// Runs jobs, in the order they came, until ``finish()`` was called and none is left.
    func drive() {
        while true {
            condition.lock()
            while jobs.isEmpty && !finished { condition.wait() }
            guard !jobs.isEmpty else {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
