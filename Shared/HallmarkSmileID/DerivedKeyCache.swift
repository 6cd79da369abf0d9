import Foundation
import Synchronization

/// A bounded cache of SIGN-1 keys by (secret version, salt), so a retried or redelivered
/// request costs no second PBKDF2 run. Entries expire after a TTL; past the size limit the
/// oldest entries go first. Emptied when the secrets are reloaded (a version may change).
public final class DerivedKeyCache: Sendable {
    struct Key: Hashable {
        let version: String
        let salt: Data
    }

    struct Entry {
        let key: Data
        let expires: ContinuousClock.Instant
    }

    struct State {
        var entries: [Key: Entry] = [:]
        /// Insertion order; may hold keys already removed (skipped on eviction).
        var order: [Key] = []
        var head = 0
    }

    public let capacity: Int
    public let ttl: Duration
    private let state = Mutex(State())

    public init(capacity: Int, ttl: TimeInterval) {
        self.capacity = capacity
        self.ttl = .milliseconds(Int64(ttl * 1000))
    }

    /// The cached key, when present and fresh.
    public func get(version: String, salt: Data) -> Data? {
        guard capacity > 0 else { return nil }
        let key = Key(version: version, salt: salt)
        return state.withLock { s in
            guard let entry = s.entries[key] else { return nil }
            guard entry.expires > .now else {
                s.entries[key] = nil
                return nil
            }
            return entry.key
        }
    }

    public func put(version: String, salt: Data, key: Data) {
        guard capacity > 0 else { return }
        let k = Key(version: version, salt: salt)
        let entry = Entry(key: key, expires: .now + ttl)
        state.withLock { s in
            if s.entries.updateValue(entry, forKey: k) == nil { s.order.append(k) }
            while s.entries.count > capacity, s.head < s.order.count {
                s.entries[s.order[s.head]] = nil
                s.head += 1
            }
            // Compact the order list once its dead prefix is large.
            if s.head > capacity {
                s.order.removeFirst(s.head)
                s.head = 0
                s.order.removeAll { s.entries[$0] == nil }
            }
        }
    }

    /// Number of entries held (expired ones included until touched).
    public var count: Int { state.withLock { $0.entries.count } }

    public func removeAll() {
        state.withLock { $0 = State() }
    }
}
