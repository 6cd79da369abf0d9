import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The processes a benchmark started, stopped with it. A bench told to stop (SIGINT from
/// Ctrl-C, SIGTERM from `timeout` or a CI runner, SIGHUP) passes the signal's intent on to its
/// children before it dies: otherwise the services it started go on reading and polling the
/// broker and the database, and skew every measurement after it.
///
/// The handler only reads a fixed table and calls `kill`, which is async-signal-safe. A caught
/// signal is reset to its default in a child at `exec`, so the children keep SIGTERM as theirs
/// (an ignored one would be inherited).
enum BenchChildren {
    private static let capacity = 256
    /// Process ids (0 for a free slot) and the signal each is stopped with.
    nonisolated(unsafe) private static let table: UnsafeMutablePointer<(pid: pid_t, signal: Int32)> = {
        let table = UnsafeMutablePointer<(pid: pid_t, signal: Int32)>.allocate(capacity: capacity)
        table.initialize(repeating: (0, 0), count: capacity)
        return table
    }()
    private static let used = Atomic<Int>(0)
    private static let installed = Mutex(false)

    /// Registers a child, stopped with `signal` if the bench is told to stop (SIGKILL for a
    /// child that cannot be told otherwise).
    static func add(_ pid: pid_t, stopWith signal: Int32 = SIGTERM) {
        installHandlers()
        let slot = used.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
        guard slot < capacity else { return }
        table[slot] = (pid, signal)
    }

    /// Forgets a child that was stopped or has exited.
    static func remove(_ pid: pid_t) {
        for i in 0..<min(used.load(ordering: .sequentiallyConsistent), capacity) where table[i].pid == pid {
            table[i] = (0, 0)
        }
    }

    private static func installHandlers() {
        installed.withLock { done in
            guard !done else { return }
            done = true
            // Touched here, so the handler never runs a lazy initializer.
            _ = table
            _ = used.load(ordering: .sequentiallyConsistent)
            for number in [SIGINT, SIGTERM, SIGHUP] {
                var action = sigaction()
                action.__sigaction_handler.sa_handler = { received in
                    let count = min(BenchChildren.used.load(ordering: .sequentiallyConsistent), BenchChildren.capacity)
                    for i in 0..<count {
                        let child = BenchChildren.table[i]
                        if child.pid > 0 { kill(child.pid, child.signal) }
                    }
                    // Then die of the signal, as without this handler.
                    signal(received, SIG_DFL)
                    raise(received)
                }
                sigemptyset(&action.sa_mask)
                action.sa_flags = 0
                sigaction(number, &action, nil)
            }
        }
    }
}
