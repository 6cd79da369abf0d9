import Synchronization

/// A batch stage's batches being processed, and a wait for the next of them to finish: the
/// group commit of ``Stage``'s batch workers.
///
/// A worker that took less than a full batch goes at once when no other batch is being
/// processed (so at low load a message costs one round trip, not a fixed linger), and
/// otherwise waits until one of them finishes, collecting what arrived meanwhile. So batches
/// grow only while work queues behind the database, and no linger needs tuning.
final class BatchActivity: Sendable {
    private struct State {
        var active = 0
        /// Batches finished so far: a waiter goes on once it changes.
        var finished: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var lastID: UInt64 = 0
    }
    private let state = Mutex(State())

    init() {}

    /// Workers parked until a batch finishes (tests observe it instead of sleeping).
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// A batch starts being processed.
    func begin() { state.withLock { $0.active += 1 } }

    /// A batch finished: every waiter goes on.
    func end() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.active -= 1
            s.finished &+= 1
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        waiters.forEach { $0.resume() }
    }

    /// Returns at once when no batch is being processed; otherwise when one finishes, after
    /// `limit`, or on cancellation, whichever comes first.
    func nextCompletion(atMost limit: Duration) async {
        let ticket = state.withLock { s -> (id: UInt64, seen: UInt64)? in
            guard s.active > 0 else { return nil }
            s.lastID &+= 1
            return (s.lastID, s.finished)
        }
        guard let (id, seen) = ticket else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.park(id, unlessFinishedSince: seen) }
            group.addTask {
                try? await Task.sleep(for: limit)
                self.release(id)
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// Suspends until ``end()`` or ``release(_:)``. It does not park if a batch finished since
    /// `seen`, or if its task was cancelled (the flag is set before the handler runs).
    private func park(_ id: UInt64, unlessFinishedSince seen: UInt64) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.finished != seen || Task.isCancelled { return true }
                    s.waiters[id] = continuation
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
        state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
}
