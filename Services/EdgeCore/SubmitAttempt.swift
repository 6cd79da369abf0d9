import Synchronization

/// One submission's backend work raced against the backend timeout, answered once: the
/// receipt is opened, then the bundle published, then its outcome awaited. The timeout covers
/// the first two steps (what the broker or the database may hold for ever); the outcome's own
/// wait ends in a pending answer, never a 503. The first answer wins; the work is cancelled
/// when the timer wins and left to finish on its own.
final class SubmitAttempt: Sendable {
    /// Where the work is.
    enum Step: Sendable {
        case opening, publishing, waiting
    }

    private struct State {
        var step = Step.opening
        var answered = false
        var task: Task<Void, Never>?
    }

    private let state = Mutex(State())
    private let answer: @Sendable (Result<[UInt8], EdgeError>) -> Void

    /// `answer` is called once, from whichever thread finishes first.
    init(answer: @escaping @Sendable (Result<[UInt8], EdgeError>) -> Void) {
        self.answer = answer
    }

    /// Runs `work` as this attempt's task (cancelled at once when already answered).
    func start(_ work: @escaping @Sendable () async -> Void) {
        let task = Task { await work() }
        let answered = state.withLock { s in
            s.task = task
            return s.answered
        }
        if answered { task.cancel() }
    }

    /// The work moved on to `step`.
    func enter(_ step: Step) { state.withLock { $0.step = step } }

    /// Answers with `result` unless answered already; whether this answered.
    @discardableResult
    func finish(_ result: Result<[UInt8], EdgeError>) -> Bool {
        let first = state.withLock { s in
            defer { s.answered = true }
            return !s.answered
        }
        if first { answer(result) }
        return first
    }

    /// The backend timeout: 503 for the step still waiting on the store or the broker, and the
    /// work cancelled; nothing once the outcome is awaited.
    func expire() {
        let expired = state.withLock { s -> (Step, Task<Void, Never>?)? in
            guard !s.answered, s.step != .waiting else { return nil }
            s.answered = true
            return (s.step, s.task)
        }
        guard let (step, task) = expired else { return }
        task?.cancel()
        answer(
            .failure(
                step == .opening
                    ? EdgeError(.unavailable, "the receipt store is unavailable")
                    : EdgeError(.unavailable, "the broker is unavailable")))
    }
}
