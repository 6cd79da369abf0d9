import Dispatch
import libpq

/// Sends a PostgreSQL cancel request when the task awaiting a connection's call is cancelled.
///
/// The cancel request goes over a separate connection (libpq's `PQcancel`, safe to call from
/// any thread). It must hit only the call it was meant for, so it is sent while holding the
/// lock that the connection's queue needs to finish that call: the next call cannot start before
/// the request has been delivered, and a request for a call that already finished is dropped.
final class QueryCanceller: @unchecked Sendable {
    private let token: OpaquePointer?  // PGcancel*, read-only for PQcancel
    private let state = Locked(State())

    private struct State {
        var nextOperation = 0
        var running: Int?
        /// A cancellation that arrived before its call reached the queue.
        var cancelledEarly: Int?
    }

    init(connection: OpaquePointer) {
        token = PQgetCancel(connection)
    }

    /// Frees the cancel token; call when the connection is finished.
    func release() {
        if let token { PQfreeCancel(token) }
    }

    /// Reserves an identifier for a call about to be queued.
    func nextOperation() -> Int {
        state.withLock { state in
            state.nextOperation += 1
            return state.nextOperation
        }
    }

    /// On the queue, before the call: false if it was cancelled already (don't run it).
    func start(_ operation: Int) -> Bool {
        state.withLock { state in
            guard state.cancelledEarly != operation else { return false }
            state.running = operation
            return true
        }
    }

    /// On the queue, after the call. Blocks while a cancel request is being sent.
    func finish() {
        state.withLock { $0.running = nil }
    }

    /// From a task cancellation handler: cancel `operation` if it is running, or before it starts.
    func cancel(_ operation: Int) {
        DispatchQueue.global().async { [self] in
            state.withLock { state in
                guard state.running == operation else {
                    if state.running == nil || state.running! < operation { state.cancelledEarly = operation }
                    return
                }
                guard let token else { return }
                var message = [CChar](repeating: 0, count: 256)
                _ = PQcancel(token, &message, Int32(message.count))
            }
        }
    }
}
