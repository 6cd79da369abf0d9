import Synchronization

/// Bounds a wait the edge does not control (a body trickling in, the broker's acknowledgement):
/// the caller gets `error` at the deadline even when the operation ignores cancellation (it is
/// cancelled and left to finish on its own).
enum Deadline {
    static func run<T: Sendable>(
        _ timeout: Duration, else error: EdgeError, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = Race<T>()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            race.start(continuation)
            race.add(Task { race.finish(await Result(catching: operation)) })
            race.add(
                Task {
                    try? await Task.sleep(for: timeout)
                    race.finish(.failure(error))
                })
        }
    }

    /// The first of the operation and the timer to finish resumes the caller and cancels the other.
    private final class Race<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var done = false
            var tasks: [Task<Void, Never>] = []
        }
        private let state = Mutex(State())

        func start(_ continuation: CheckedContinuation<T, any Error>) { state.withLock { $0.continuation = continuation } }

        func add(_ task: Task<Void, Never>) {
            let cancel = state.withLock { s -> Bool in
                s.tasks.append(task)
                return s.done
            }
            if cancel { task.cancel() }
        }

        func finish(_ result: Result<T, any Error>) {
            let won = state.withLock { s -> (CheckedContinuation<T, any Error>, [Task<Void, Never>])? in
                guard !s.done, let c = s.continuation else { return nil }
                s.done = true
                return (c, s.tasks)
            }
            guard let (continuation, tasks) = won else { return }
            continuation.resume(with: result)
            tasks.forEach { $0.cancel() }
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
