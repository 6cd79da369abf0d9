import Synchronization

/// A task executor that runs nothing until told to: a test starts a call in a task that
/// prefers this executor, runs it with ``runUntilIdle()``, and then knows, without any timing,
/// that the call has either returned or is suspended waiting for something.
final class ManualExecutor: TaskExecutor, Sendable {
    private let jobs = Mutex<[UnownedJob]>([])

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
    }

    /// Runs every job, including those the jobs enqueue, until none is left.
    func runUntilIdle() {
        while let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// A call started on a ``ManualExecutor``: whether it returned yet, and its result.
final class ManualCall<Value: Sendable>: Sendable {
    private let result = Mutex<Value?>(nil)
    private let executor: ManualExecutor

    /// Starts `body` and runs it as far as it goes without outside help.
    init(on executor: ManualExecutor, _ body: @escaping @Sendable () async -> Value) {
        self.executor = executor
        Task(executorPreference: executor) { [self] in
            let value = await body()
            self.result.withLock { $0 = value }
        }
        executor.runUntilIdle()
    }

    /// Lets the call go on after something it waited for happened, as far as it goes.
    func advance() { executor.runUntilIdle() }

    /// The call's result, nil while it waits.
    var value: Value? { result.withLock { $0 } }
    var returned: Bool { value != nil }
}
