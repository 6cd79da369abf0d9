import Foundation
import HallmarkPostgres
import Synchronization

/// Finds devices by the blind index of their NUC hash, with a bounded in-memory cache.
///
/// Entries live at most `ttl`, so an admin change made by another replica is seen within
/// that time; the replica that makes a change drops its entry at once. Unknown devices are
/// not cached (a device may be provisioned a moment later).
package final class DeviceDirectory: Sendable {
    struct Cached: Sendable {
        var entry: DeviceEntry
        var fetchedAt: ContinuousClock.Instant
    }

    let schema: String
    let capacity: Int
    let ttl: Duration
    private let cache = Mutex<[Data: Cached]>([:])

    /// Creates a directory over `schema`.devices.
    package init(schema: String, capacity: Int, ttl: Duration) {
        self.schema = schema
        self.capacity = max(1, capacity)
        self.ttl = ttl
    }

    /// The device with this NUC blind index, or nil.
    package func lookup(nucIndex: Data, pool: PostgresPool) async throws -> DeviceEntry? {
        try await lookup(nucIndices: [nucIndex], pool: pool)[nucIndex]
    }

    /// The devices with these NUC blind indexes (unknown ones are absent): cached entries,
    /// and one query for all the others.
    package func lookup(nucIndices: [Data], pool: PostgresPool) async throws -> [Data: DeviceEntry] {
        let now = ContinuousClock.now
        var found: [Data: DeviceEntry] = [:]
        var missing: [Data] = []
        cache.withLock { cache in
            for index in nucIndices where found[index] == nil {
                if let hit = cache[index], now - hit.fetchedAt < ttl { found[index] = hit.entry } else { missing.append(index) }
            }
        }
        missing = Array(Set(missing))
        guard !missing.isEmpty else { return found }
        let list = PostgresQuery.joined(missing.map { index -> PostgresQuery in "\(index)" }, separator: ", ")
        let rows = try await pool.query(
            """
            SELECT nuc_index, device_id, serial, table_a, table_b, table_c, blacklisted
            FROM \(unescaped: schema).devices WHERE nuc_index IN (\(list))
            """)
        var fetched: [Data: DeviceEntry] = [:]
        for (index, id, serial, a, b, c, blacklisted) in try rows.decode((Data, Int64, String, Int64, Int64, Int64, Bool).self) {
            fetched[index] = Self.entry(id, serial, a, b, c, blacklisted)
        }
        cache.withLock { cache in
            for index in missing {
                guard let entry = fetched[index] else {
                    cache.removeValue(forKey: index)
                    continue
                }
                if cache.count >= capacity, let victim = cache.keys.first { cache.removeValue(forKey: victim) }
                cache[index] = Cached(entry: entry, fetchedAt: now)
            }
        }
        return found.merging(fetched) { cached, _ in cached }
    }

    /// The devices with these serials (unknown ones are absent), read now: a certificate
    /// bundle's device (DESIGN BM-CERT), whose blacklisting is seen at once.
    package func lookup(serials: [String], pool: PostgresPool) async throws -> [String: DeviceEntry] {
        guard !serials.isEmpty else { return [:] }
        let rows = try await pool.query(
            """
            SELECT device_id, serial, table_a, table_b, table_c, blacklisted
            FROM \(unescaped: schema).devices WHERE serial = ANY(\(PostgresArray(Array(Set(serials)))))
            """)
        var found: [String: DeviceEntry] = [:]
        for (id, serial, a, b, c, blacklisted) in try rows.decode((Int64, String, Int64, Int64, Int64, Bool).self) {
            found[serial] = Self.entry(id, serial, a, b, c, blacklisted)
        }
        return found
    }

    /// The entry of what both lookups read of a device: `device_id, serial, table_a, table_b,
    /// table_c, blacklisted`.
    static func entry(_ id: Int64, _ serial: String, _ a: Int64, _ b: Int64, _ c: Int64, _ blacklisted: Bool) -> DeviceEntry {
        DeviceEntry(id: id, serial: serial, assignedTables: [Int(a), Int(b), Int(c)], blacklisted: blacklisted)
    }

    /// Drops one device from the cache (by its serial), after an admin change.
    package func invalidate(serial: String) {
        cache.withLock { cache in
            for (key, value) in cache where value.entry.serial == serial { cache.removeValue(forKey: key) }
        }
    }

    /// Drops every entry.
    package func invalidateAll() { cache.withLock { $0.removeAll() } }
}
