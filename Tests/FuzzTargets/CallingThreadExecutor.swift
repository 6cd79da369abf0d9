import HallmarkCore

/// A task executor whose jobs run on the thread that calls ``drive()``, until ``finish()`` has
/// been called and no job is left (``Blocking``).
///
/// Jobs may be enqueued from any thread: the PBKDF2 pool's workers resume the tasks waiting on
/// them from theirs.
final class CallingThreadExecutor: TaskExecutor, Sendable {
    private let jobs = JobQueue()

    func enqueue(_ job: consuming ExecutorJob) { jobs.enqueue(UnownedJob(job)) }

    /// Lets ``drive()`` return once the jobs already enqueued have run.
    func finish() { jobs.finish() }

    /// Runs jobs, in the order they came, until ``finish()`` was called and none is left.
    func drive() { jobs.drive(on: asUnownedTaskExecutor()) }
}
