#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock` on a file, so witnesses in several processes sharing one state file
/// check and update it one at a time (C2SP tlog-witness: the check and the update are atomic).
final class FileLock: @unchecked Sendable {
    private let descriptor: Int32

    /// Opens (creating) `path` for locking.
    init(path: String) throws(WitnessError) {
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw WitnessError("cannot open the state lock file") }
    }

    deinit { close(descriptor) }

    /// Runs `body` holding the lock. Blocks: call it off the cooperative pool.
    func withLock<T>(_ body: () throws -> T) throws -> T {
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw WitnessError("cannot lock the state file") }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
