import Synchronization

/// One answer awaited: filled once (the answer, or nil at the deadline); later fills are ignored.
final class AnswerSlot: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<[UInt8]?, Never>)
        case filled([UInt8]?)
    }
    private let state = Mutex<State>(.empty)

    func fill(_ value: [UInt8]?) {
        let waiter = state.withLock { s -> CheckedContinuation<[UInt8]?, Never>? in
            switch s {
            case .empty:
                s = .filled(value)
                return nil
            case .waiting(let c):
                s = .filled(value)
                return c
            case .filled:
                return nil
            }
        }
        waiter?.resume(returning: value)
    }

    func value() async -> [UInt8]? {
        await withCheckedContinuation { c in
            let ready = state.withLock { s -> [UInt8]?? in
                if case .filled(let v) = s { return .some(v) }
                s = .waiting(c)
                return nil
            }
            if let ready { c.resume(returning: ready) }
        }
    }
}
