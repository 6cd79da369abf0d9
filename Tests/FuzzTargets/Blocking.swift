import Foundation
import Synchronization

/// Runs async work to completion from libFuzzer's synchronous callback. The callback's thread
/// is libFuzzer's own, not one of the cooperative pool's, so waiting on it blocks no task.
enum Blocking {
    private final class Outcome<T: Sendable>: Sendable {
        let value = Mutex<Result<T, any Error>?>(nil)
    }

    static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Outcome<T>()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                let value = try await work()
                outcome.value.withLock { $0 = .success(value) }
            } catch {
                outcome.value.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try outcome.value.withLock { $0! }.get()
    }
}
