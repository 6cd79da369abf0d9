import Synchronization

/// Lets tasks wait for a consumer to have closed: whoever waits before is resumed when it
/// closes, whoever comes after at once.
final class CloseLatch: Sendable {
    private let state = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// The consumer closed: every waiter goes on.
    func release() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.done = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns once ``release()`` was called.
    func wait() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.done { return true }
                state.waiters.append(waiter)
                return false
            }
            if resumeNow { waiter.resume() }
        }
    }
}
