import Foundation

/// Send instants by request id.
final class SentTimes: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [String: ContinuousClock.Instant] = [:]

    func set(_ id: String, _ t: ContinuousClock.Instant) {
        lock.lock()
        times[id] = t
        lock.unlock()
    }

    func get(_ id: String) -> ContinuousClock.Instant? {
        lock.lock()
        defer { lock.unlock() }
        return times[id]
    }
}
