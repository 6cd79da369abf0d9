import Foundation
import Synchronization

/// Unsealed session keys for a short time, so phase 1 of a busy session reads its row once
/// per `ttl` instead of once per message. Each entry carries its row's generation: another
/// replica may close the session and make a new one with the same id without this cache
/// knowing, and the counter statements match only the live row's generation, so a stale
/// entry never decrypts into the new session (``SessionStore/receive(_:on:)``).
final class SessionKeyCache: Sendable {
    private let entries = Mutex<[String: (key: SessionKey, until: ContinuousClock.Instant)]>([:])
    let capacity: Int
    let ttl: Duration

    init(capacity: Int = 65_536, ttl: Duration = .seconds(10)) {
        self.capacity = capacity
        self.ttl = ttl
    }

    func get(_ sessionID: String) -> SessionKey? {
        entries.withLock { e in
            guard let entry = e[sessionID], entry.until > .now else { return nil }
            return entry.key
        }
    }

    func put(_ sessionID: String, _ key: SessionKey) {
        entries.withLock { e in
            if e.count >= capacity { e.removeAll(keepingCapacity: true) }
            e[sessionID] = (key, .now + ttl)
        }
    }

    func remove(_ sessionID: String) { _ = entries.withLock { $0.removeValue(forKey: sessionID) } }

    /// Removes the entry only while it is still of `generation` (a newer one stays).
    func remove(_ sessionID: String, generation: Int64) {
        entries.withLock { e in
            if e[sessionID]?.key.generation == generation { e[sessionID] = nil }
        }
    }
}
