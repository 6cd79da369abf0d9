import Synchronization

/// One submission's backend work, raced against the backend timeout and answered once: the
/// receipt is opened, then the bundle published, then its outcome awaited. Each step begins
/// from the callback of the one before (``EdgeHandlers/accept(_:deadlines:logger:answer:)``),
/// so no task waits on a submission: a task and its threads' wake-ups cost nearly as much
/// as the bundle's own work.
///
/// The timeout covers the first two steps (what the broker or the database may hold for ever):
/// it answers 503, and the steps not yet begun are skipped (the camera sends the same bundle
/// again). The outcome's own wait ends in a pending answer, never a 503. The first answer wins.
final class SubmitAttempt: Sendable {
    /// Where the work is.
    enum Step: Sendable {
        case opening, publishing, waiting
    }

    private struct State {
        var step = Step.opening
        var answered = false
    }

    private let state = Mutex(State())
    private let answer: @Sendable (Result<[UInt8], EdgeError>) -> Void

    /// `answer` is called once, from whichever thread finishes first.
    init(answer: @escaping @Sendable (Result<[UInt8], EdgeError>) -> Void) {
        self.answer = answer
    }

    /// Moves the work on to `step`; false when the attempt is answered already (the timeout
    /// won), and the step is not to begin.
    func enter(_ step: Step) -> Bool {
        state.withLock { s in
            guard !s.answered else { return false }
            s.step = step
            return true
        }
    }

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

    /// The backend timeout: 503 for the step still waiting on the store or the broker; nothing
    /// once the outcome is awaited.
    func expire() {
        let expired = state.withLock { s -> Step? in
            guard !s.answered, s.step != .waiting else { return nil }
            s.answered = true
            return s.step
        }
        guard let step = expired else { return }
        answer(
            .failure(
                step == .opening
                    ? EdgeError(.unavailable, "the receipt store is unavailable")
                    : EdgeError(.unavailable, "the broker is unavailable")))
    }
}
