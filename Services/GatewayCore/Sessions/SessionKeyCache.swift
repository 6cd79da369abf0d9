import Foundation
import Synchronization

/// Unsealed session keys for a short time, so phase 1 of a busy session reads its row once
/// per `ttl` instead of once per message. A closed or expired session is still refused at
/// once: the counter statement only matches live rows.
final class SessionKeyCache: Sendable {
    private let entries = Mutex<[String: (key: Data, until: ContinuousClock.Instant)]>([:])
    let capacity: Int
    let ttl: Duration

    init(capacity: Int = 65_536, ttl: Duration = .seconds(10)) {
        self.capacity = capacity
        self.ttl = ttl
    }

    func get(_ sessionID: String) -> Data? {
        entries.withLock { e in
            guard let entry = e[sessionID], entry.until > .now else { return nil }
            return entry.key
        }
    }

    func put(_ sessionID: String, _ key: Data) {
        entries.withLock { e in
            if e.count >= capacity { e.removeAll(keepingCapacity: true) }
            e[sessionID] = (key, .now + ttl)
        }
    }

    func remove(_ sessionID: String) { _ = entries.withLock { $0.removeValue(forKey: sessionID) } }
}
