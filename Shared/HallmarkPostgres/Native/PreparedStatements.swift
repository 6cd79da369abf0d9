import libpq

/// A connection's named prepared statements, by SQL text and parameter types. A statement run
/// a second time is prepared, and from then on PostgreSQL skips its parse and plan: for the
/// runtime's batch statements planning cost as much as running them at small batch sizes
/// (the gateway's counter statement planned in ~0.75 ms and ran in ~0.6 ms for 16 messages).
/// Only touched on the connection's queue.
struct PreparedStatements {
    /// Statements prepared at most per connection; past it, statements run unprepared.
    static let limit = 128
    /// SQL texts remembered as run once; past it, the memory starts over.
    static let seenLimit = 1024

    private struct Key: Hashable {
        let sql: String
        let types: [Oid]
    }

    private var prepared: [Key: String] = [:]
    private var seenOnce: Set<Key> = []
    private var counter = 0

    /// What to do with a statement about to run.
    enum Plan {
        /// Run it unprepared (first sight, or the cache is full).
        case unprepared
        /// Prepare it under this name, then run it.
        case prepare(String)
        /// Run the statement prepared under this name.
        case run(String)
    }

    mutating func plan(_ sql: String, types: [Oid]) -> Plan {
        let key = Key(sql: sql, types: types)
        if let name = prepared[key] { return .run(name) }
        guard prepared.count < Self.limit else { return .unprepared }
        guard seenOnce.contains(key) else {
            if seenOnce.count >= Self.seenLimit { seenOnce.removeAll(keepingCapacity: true) }
            seenOnce.insert(key)
            return .unprepared
        }
        counter += 1
        return .prepare("hallmark_\(counter)")
    }

    /// The statement is prepared on the server under `name`.
    mutating func prepared(_ sql: String, types: [Oid], as name: String) {
        let key = Key(sql: sql, types: types)
        seenOnce.remove(key)
        prepared[key] = name
    }

    /// Forgets a statement whose prepared form the server no longer runs (gone, or its
    /// result type changed under it), so the next run prepares it afresh.
    mutating func forget(_ name: String) {
        prepared = prepared.filter { $0.value != name }
    }
}
