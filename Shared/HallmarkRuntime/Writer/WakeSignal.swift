import Synchronization

/// Wakes one waiter early: ``wait(timeout:)`` returns at the next ``signal()`` (or at once if
/// one came since the last wait), at the timeout, or when its task is cancelled, and the
/// signal stays usable after each of them.
///
/// It replaces an `AsyncStream` iterated from a child task that a timeout cancelled: cancelling
/// an `AsyncStream`'s iteration finishes the stream, so after the first timeout every wait
/// returned at once and the idle log writer polled PostgreSQL as fast as it answered.
final class WakeSignal: Sendable {
    private struct State {
        /// A signal no waiter has taken yet.
        var pending = false
        var waiter: (id: UInt64, continuation: CheckedContinuation<Void, Never>)?
        var lastID: UInt64 = 0
    }
    private let state = Mutex(State())

    init() {}

    /// Whether a wait is parked (tests observe it instead of sleeping).
    var hasWaiter: Bool { state.withLock { $0.waiter != nil } }

    /// Wakes the waiter, or the next one to wait.
    func signal() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let waiter = s.waiter else {
                s.pending = true
                return nil
            }
            s.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// Returns at a signal, after `timeout`, or on cancellation, whichever comes first. One
    /// waiter at a time.
    func wait(timeout: Duration) async {
        let id = state.withLock { s -> UInt64? in
            if s.pending {
                s.pending = false
                return nil
            }
            s.lastID &+= 1
            return s.lastID
        }
        guard let id else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.park(id) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                self.release(id)
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Suspends until ``signal()`` or ``release(_:)``. Cancellation releases it; a task
    /// cancelled before it parks does not park (the flag is set before the handler runs).
    private func park(_ id: UInt64) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.pending {
                        s.pending = false
                        return true
                    }
                    if Task.isCancelled { return true }
                    precondition(s.waiter == nil, "WakeSignal has one waiter at a time")
                    s.waiter = (id, continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            release(id)
        }
    }

    /// Resumes waiter `id` if it is still parked.
    private func release(_ id: UInt64) {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let waiter = s.waiter, waiter.id == id else { return nil }
            s.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }
}
