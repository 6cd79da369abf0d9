import Foundation
import HallmarkPostgres
import Synchronization

/// Finds devices by the blind index of their NUC hash, with a bounded in-memory cache.
///
/// Entries live at most `ttl`, so an admin change made by another replica is seen within
/// that time; the replica that makes a change drops its entry at once. Unknown devices are
/// not cached (a device may be provisioned a moment later).
public final class DeviceDirectory: Sendable {
    struct Cached: Sendable {
        var entry: DeviceEntry
        var fetchedAt: ContinuousClock.Instant
    }

    let schema: String
    let capacity: Int
    let ttl: Duration
    private let cache = Mutex<[Data: Cached]>([:])

    /// Creates a directory over `schema`.devices.
    public init(schema: String, capacity: Int, ttl: Duration) {
        self.schema = schema
        self.capacity = max(1, capacity)
        self.ttl = ttl
    }

    /// The device with this NUC blind index, or nil.
    public func lookup(nucIndex: Data, pool: PostgresPool) async throws -> DeviceEntry? {
        let now = ContinuousClock.now
        if let hit = cache.withLock({ $0[nucIndex] }), now - hit.fetchedAt < ttl { return hit.entry }
        let rows = try await pool.query("""
            SELECT device_id, serial, table_a, table_b, table_c, blacklisted
            FROM \(unescaped: schema).devices WHERE nuc_index = \(nucIndex)
            """)
        guard let row = rows.first else {
            _ = cache.withLock { $0.removeValue(forKey: nucIndex) }
            return nil
        }
        let (id, serial, a, b, c, blacklisted) = try row.decode((Int64, String, Int64, Int64, Int64, Bool).self)
        let entry = DeviceEntry(id: id, serial: serial, assignedTables: [Int(a), Int(b), Int(c)], blacklisted: blacklisted)
        cache.withLock { cache in
            if cache.count >= capacity, let victim = cache.keys.first { cache.removeValue(forKey: victim) }
            cache[nucIndex] = Cached(entry: entry, fetchedAt: now)
        }
        return entry
    }

    /// Drops one device from the cache (by its serial), after an admin change.
    public func invalidate(serial: String) {
        cache.withLock { cache in
            for (key, value) in cache where value.entry.serial == serial { cache.removeValue(forKey: key) }
        }
    }

    /// Drops every entry.
    public func invalidateAll() { cache.withLock { $0.removeAll() } }
}
