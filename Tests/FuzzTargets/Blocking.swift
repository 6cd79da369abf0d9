import Synchronization

/// Runs async work to completion from libFuzzer's synchronous callback, on the callback's
/// own thread.
///
/// Every job of the work, its child tasks' and any default actor's it calls, runs on the
/// calling thread (``CallingThreadExecutor``), and `run` returns only once none is left. So when
/// libFuzzer checks for leaks after an input, no task of that input is still finishing on
/// another thread. One that was (the previous version ran the work as a detached task and
/// waited on a semaphore) still held the input's and the result's `Data` then, in words that
/// LeakSanitizer cannot read as pointers, and was reported as a leak: enc1's corpus, in 7 of 12
/// checks on a loaded machine.
enum Blocking {
    static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let executor = CallingThreadExecutor()
        let outcome = Mutex<Result<T, any Error>?>(nil)
        Task.detached(executorPreference: executor) {
            let result: Result<T, any Error>
            do {
                result = .success(try await work())
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            executor.finish()
        }
        executor.drive()
        return try outcome.withLock { $0.take()! }.get()
    }
}
