import Synchronization

/// One answer awaited: filled once (the answer, or nil at the deadline); later fills are ignored.
final class AnswerSlot: Sendable {
    /// Told the answer once it is filled.
    typealias Waiter = @Sendable ([UInt8]?) -> Void

    private enum State {
        case empty
        case waiting(Waiter)
        case filled([UInt8]?)
    }
    private let state = Mutex<State>(.empty)

    func fill(_ value: [UInt8]?) {
        let waiter = state.withLock { s -> Waiter? in
            switch s {
            case .empty:
                s = .filled(value)
                return nil
            case .waiting(let w):
                s = .filled(value)
                return w
            case .filled:
                return nil
            }
        }
        waiter?(value)
    }

    func value() async -> [UInt8]? {
        await withCheckedContinuation { c in whenFilled { c.resume(returning: $0) } }
    }

    /// Calls `waiter` with the answer: at once when it is filled already, else from the thread
    /// that fills it. One waiter per slot.
    func whenFilled(_ waiter: @escaping Waiter) {
        let ready = state.withLock { s -> [UInt8]?? in
            if case .filled(let v) = s { return .some(v) }
            s = .waiting(waiter)
            return nil
        }
        if let ready { waiter(ready) }
    }
}
