import Foundation

/// Derivations counted across the bound-measuring threads.
final class DerivationTally: @unchecked Sendable {
    private let lock = NSLock()
    private var total = 0

    func add(_ n: Int) {
        lock.lock()
        total += n
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return total
    }
}
