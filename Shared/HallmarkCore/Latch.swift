import Synchronization

/// A one-time signal tasks can wait for: whoever waits before ``release()`` is resumed by it,
/// whoever comes after goes on at once (a consumer having closed, a bench's target reached).
public final class Latch: Sendable {
    private let state = Mutex<(released: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    /// Every waiter goes on, and every later one will at once.
    public func release() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.released = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns once ``release()`` was called.
    public func wait() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.released { return true }
                state.waiters.append(waiter)
                return false
            }
            if resumeNow { waiter.resume() }
        }
    }
}
