import Synchronization

/// Work that must wait until a unit's transaction has committed: waking a reader of what the
/// unit wrote (the log writer), which would otherwise look before the rows are visible, find
/// nothing, and sleep until its next poll. Dropped when the transaction rolls back; a retry
/// registers its own.
public final class StageCommitHooks: Sendable {
    private let pending = Mutex<[@Sendable () -> Void]>([])

    public init() {}

    /// Runs `body` once the transaction has committed (at once, after phase 2, for a stage
    /// without one).
    public func afterCommit(_ body: @escaping @Sendable () -> Void) {
        pending.withLock { $0.append(body) }
    }

    /// Runs what was registered, once.
    func run() {
        let bodies = pending.withLock { bodies in
            defer { bodies = [] }
            return bodies
        }
        for body in bodies { body() }
    }
}
