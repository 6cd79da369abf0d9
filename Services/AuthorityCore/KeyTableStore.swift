import Foundation
import HallmarkCrypto
import HallmarkPostgres
import Synchronization

/// The key tables' master keys, opened once into memory (they are needed for every
/// validation). Reloaded when a token names a table not yet loaded, at most once a second,
/// so tables generated after start-up are picked up without a lookup per token.
package final class KeyTableStore: Sendable {
    struct Snapshot: Sendable {
        var masters: [Int: Data] = [:]
        var retired: Set<Int> = []
        var loadedAt: ContinuousClock.Instant?
    }

    /// Where a master key is sealed, bound into its AAD.
    package static func context(tableId: Int) -> AtRestContext {
        AtRestContext(table: "key_tables", column: "master_key", rowId: String(tableId))
    }

    let pool: PostgresPool
    let schema: String
    let secrets: AuthoritySecrets
    private let state = Mutex(Snapshot())

    /// Creates an empty store; call ``load()`` before use.
    package init(pool: PostgresPool, schema: String, secrets: AuthoritySecrets) {
        self.pool = pool
        self.schema = schema
        self.secrets = secrets
    }

    /// Reads and opens every table. With `strict`, a row that does not open is an error (a
    /// wrong KEK file at start-up); otherwise such a row keeps the key already in memory (a
    /// replica started before a KEK rotation still validates while rows move to the new KEK).
    /// With `connection`, reads on it (a message's transaction) rather than taking another
    /// pooled connection, so a full pool cannot deadlock on a reload.
    package func load(strict: Bool = false, on connection: PostgresConnection? = nil) async throws {
        let previous = state.withLock { $0.masters }
        let query: PostgresQuery = "SELECT table_id, master_sealed, retired FROM \(unescaped: schema).key_tables"
        let rows = if let connection { try await connection.query(query) } else { try await pool.query(query) }
        var next = Snapshot()
        for (id64, sealed, retired) in try rows.decode((Int64, Data, Bool).self) {
            let id = Int(id64)
            guard let master = try? AtRestSeal.open(sealed, context: Self.context(tableId: id), keyring: secrets.keyring),
                master.count == 32
            else {
                if strict { throw AuthorityError(.sealedValue, "key table \(id) does not open with the configured KEKs") }
                if let known = previous[id] { next.masters[id] = known }
                continue
            }
            next.masters[id] = master
            if retired { next.retired.insert(id) }
        }
        next.loadedAt = .now
        state.withLock { $0 = next }
    }

    /// Master keys for the given ids that exist; reloads once if one is missing and the last
    /// load is over a second old.
    package func masterKeys(for ids: [Int], on connection: PostgresConnection? = nil) async throws -> [Int: Data] {
        // Whoever finds the snapshot stale claims the reload (by stamping it now), so a burst of
        // tokens naming unknown tables causes one reload a second, not one each.
        let (found, reload) = state.withLock { s -> ([Int: Data], Bool) in
            var out: [Int: Data] = [:]
            for id in ids { if let m = s.masters[id] { out[id] = m } }
            guard out.count < Set(ids).count else { return (out, false) }
            let now = ContinuousClock.now
            guard s.loadedAt.map({ now - $0 > .seconds(1) }) ?? true else { return (out, false) }
            s.loadedAt = now
            return (out, true)
        }
        guard reload else { return found }
        try await load(on: connection)
        return state.withLock { s in
            var out: [Int: Data] = [:]
            for id in ids { if let m = s.masters[id] { out[id] = m } }
            return out
        }
    }

    /// Table ids that may receive new assignments (existing and not retired).
    package var assignable: [Int] {
        state.withLock { s in s.masters.keys.filter { !s.retired.contains($0) }.sorted() }
    }

    /// Number of loaded tables.
    package var count: Int { state.withLock { $0.masters.count } }

    /// Marks a table retired in memory (the caller updated the row).
    package func markRetired(_ id: Int) { _ = state.withLock { $0.retired.insert(id) } }
}
