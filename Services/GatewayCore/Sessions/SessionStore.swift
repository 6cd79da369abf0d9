import Foundation
import HallmarkCrypto
import HallmarkPostgres
import HallmarkRuntime

/// The E2EE-1 session table, shared by every gateway replica. Each write is one statement,
/// so replicas serving the same session never accept a counter twice or allocate one twice.
package struct SessionStore: Sendable {
    /// What one received counter came to.
    package enum Verdict: String, Sendable, Equatable {
        case accept, replay
        case counterJump = "counter_jump"
        /// No live session (never made, expired or closed).
        case unknownSession = "unknown_session"
        /// Opened under the key of another generation of the session id: a session that was
        /// closed (and the id taken again) since this replica read the key. Not authentic for
        /// the live session.
        case staleKey = "stale_key"
    }

    /// What ``allocate(_:on:)`` gave one session: its first counter, and the live row's
    /// generation and sealed key (for a batch whose cached key is of another generation).
    package struct Allocation: Sendable {
        package let first: UInt64
        package let generation: Int64
        let sealedKey: Data
    }

    package let schema: String
    package let keyring: KeyEncryptionKeyring
    let hints = CounterHints()

    package init(schema: String, keyring: KeyEncryptionKeyring) {
        self.schema = schema
        self.keyring = keyring
    }

    static func context(_ sessionID: String) -> AtRestContext {
        AtRestContext(table: "e2ee_sessions", column: "session_key", rowId: sessionID)
    }

    /// Stores a new session; returns its row's generation, or nil when a live session already
    /// has the id (an expired one is replaced, under a new generation).
    package func create(
        _ sessionID: String, sessionKey: Data, gatewayPublicKey: Data, expires: Date,
        on connection: PostgresConnection
    ) async throws -> Int64? {
        let sealed = try AtRestSeal.seal(sessionKey, context: Self.context(sessionID), keyring: keyring)
        forgetCounter(sessionID)
        return try await connection.query(
            """
            INSERT INTO \(unescaped: schema).e2ee_sessions AS s (session_id, sealed_key, gateway_public_key, expires_at)
            VALUES (\(sessionID), \(sealed), \(gatewayPublicKey), \(expires))
            ON CONFLICT (session_id) DO UPDATE
                SET sealed_key = EXCLUDED.sealed_key, gateway_public_key = EXCLUDED.gateway_public_key,
                    recv_counter = -1, send_counter = -1, created_at = now(), expires_at = EXCLUDED.expires_at,
                    generation = DEFAULT
                WHERE s.expires_at <= now()
            RETURNING s.generation
            """
        ).decode(Int64.self).first
    }

    /// The key of a live session, unsealed, with its row's generation; nil when there is none.
    package func key(_ sessionID: String, pool: PostgresPool) async throws -> SessionKey? {
        let rows = try await pool.query(
            """
            SELECT sealed_key, generation FROM \(unescaped: schema).e2ee_sessions
            WHERE session_id = \(sessionID) AND expires_at > now()
            """
        ).decode((Data, Int64).self)
        guard let row = rows.first else { return nil }
        return SessionKey(key: try open(row.0, sessionID), generation: row.1)
    }

    /// The live sessions among `ids`: each one's generation and key, unsealed.
    package func keys(_ ids: [String], on connection: PostgresConnection) async throws -> [String: SessionKey] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            SELECT session_id, sealed_key, generation FROM \(unescaped: schema).e2ee_sessions
            WHERE session_id = ANY(\(PostgresArray(ids))) AND expires_at > now()
            """
        ).decode((String, Data, Int64).self)
        var out: [String: SessionKey] = [:]
        for (id, sealed, generation) in rows { out[id] = SessionKey(key: try open(sealed, id), generation: generation) }
        return out
    }

    /// A session row's sealed key, unsealed.
    func open(_ sealed: Data, _ sessionID: String) throws -> Data {
        try AtRestSeal.open(sealed, context: Self.context(sessionID), keyring: keyring)
    }

    /// Checks and records received counters, `items` in the order they arrived (Kafka key
    /// order per session), each with the generation of the key that opened it, in the caller's
    /// transaction. Each session's generation and last accepted counter
    /// comes from this replica's hint, or from its row when there is none; ``CounterRule``
    /// decides every message from it; then one statement records each session's new counter
    /// only where the row still holds the one the decisions started from, under the same
    /// generation (and the session is still live). That compare-and-set is the atomic check
    /// and update: a message opened with a closed session's key (a replica's cached key after
    /// another replica closed the id and made it again) can never count for the new session.
    ///
    /// A hint can be stale: another replica moved the counter, or the transaction that set it
    /// rolled back (the stage reruns a batch without its redelivered messages that way). The
    /// sessions the statement did not match are read again in this transaction, decided again
    /// and set again; only if that second compare-and-set misses too (a replica moved the
    /// counter in between) does this throw ``SessionConflict``, and the transaction is retried.
    package func receive(
        _ items: [(sessionID: String, generation: Int64, counter: UInt64)],
        on connection: PostgresConnection
    ) async throws -> [Verdict] {
        guard !items.isEmpty else { return [] }
        // Sorted ids: concurrent replicas lock shared rows in one order.
        let ids = Array(Set(items.map(\.sessionID))).sorted()
        var start = hints.get(ids)
        try await read(ids.filter { start[$0] == nil }, into: &start, on: connection)
        var pending = ids.filter { start[$0] != nil }
        var decided = CounterRule.apply(items, from: start)
        for attempt in 0..<2 {
            let matched = try await compareAndSet(pending, expected: start, next: decided.last, on: connection)
            pending.removeAll { matched.contains($0) }
            guard !pending.isEmpty else { break }
            hints.forget(pending)
            guard attempt == 0 else { throw SessionConflict() }
            // Sessions are decided independently: re-deciding the missed ones from their rows
            // leaves the matched ones' decisions as they were.
            for id in pending { start[id] = nil }
            try await read(pending, into: &start, on: connection)
            pending.removeAll { start[$0] == nil }
            decided = CounterRule.apply(items, from: start)
        }
        hints.set(decided.last.filter { start[$0.key] != nil })
        return decided.verdicts
    }

    /// Each live session's generation and stored last counter, into `start`.
    private func read(
        _ ids: [String], into start: inout [String: CounterRule.Position],
        on connection: PostgresConnection
    ) async throws {
        guard !ids.isEmpty else { return }
        let rows = try await connection.query(
            """
            SELECT session_id, generation, recv_counter FROM \(unescaped: schema).e2ee_sessions
            WHERE session_id = ANY(\(PostgresArray(ids))) AND expires_at > now()
            """
        ).decode((String, Int64, Int64).self)
        for (id, generation, counter) in rows { start[id] = .init(generation: generation, counter: counter) }
    }

    /// Sets each session's counter to `next` where its row is still of the expected generation
    /// and counter and live; returns the sessions it set.
    private func compareAndSet(
        _ ids: [String], expected: [String: CounterRule.Position],
        next: [String: CounterRule.Position], on connection: PostgresConnection
    ) async throws
        -> Set<String>
    {
        guard !ids.isEmpty else { return [] }
        let rows = try await connection.query(
            """
            UPDATE \(unescaped: schema).e2ee_sessions s SET recv_counter = u.next
            FROM unnest(\(PostgresArray(ids))::text[], \(PostgresArray(ids.map { expected[$0]!.generation }))::bigint[],
                        \(PostgresArray(ids.map { expected[$0]!.counter }))::bigint[],
                        \(PostgresArray(ids.map { next[$0]!.counter }))::bigint[]) AS u(sid, generation, expected, next)
            WHERE s.session_id = u.sid AND s.generation = u.generation AND s.recv_counter = u.expected
                AND s.expires_at > now()
            RETURNING s.session_id
            """
        ).decode(String.self)
        return Set(rows)
    }

    /// Forgets this replica's hint for a session whose row was just made or replaced.
    func forgetCounter(_ sessionID: String) { hints.forget([sessionID]) }

    /// Allocates the next gateway→client counters: `counts[id]` consecutive ones per session,
    /// in one statement (the row lock orders concurrent replicas). Returns each live session's
    /// first allocated counter, with the row's generation and sealed key: the counters belong
    /// to that generation, and the caller seals with its key whatever key it had in hand.
    package func allocate(_ counts: [String: Int], on connection: PostgresConnection) async throws -> [String: Allocation] {
        guard !counts.isEmpty else { return [:] }
        let ids = counts.keys.sorted()  // a fixed order: concurrent allocators never deadlock
        let rows = try await connection.query(
            """
            UPDATE \(unescaped: schema).e2ee_sessions s SET send_counter = s.send_counter + i.k
            FROM unnest(\(PostgresArray(ids))::text[], \(PostgresArray(ids.map { Int64(counts[$0]!) }))::bigint[]) AS i(sid, k)
            WHERE s.session_id = i.sid AND s.expires_at > now() AND s.send_counter <= 9223372036854775807 - i.k
            RETURNING s.session_id, s.send_counter - i.k + 1, s.generation, s.sealed_key
            """
        ).decode((String, Int64, Int64, Data).self)
        return Dictionary(
            uniqueKeysWithValues: rows.map {
                ($0.0, Allocation(first: UInt64($0.1), generation: $0.2, sealedKey: $0.3))
            })
    }

    /// Closes a session: its row, and the sealed key in it, are deleted (nothing when it is not
    /// there). A later message for it is `unknown_session`, also on a replica that still holds
    /// the key in memory: the counter statement finds no live row.
    package func close(_ sessionID: String, on connection: PostgresConnection) async throws {
        forgetCounter(sessionID)
        try await connection.execute("DELETE FROM \(unescaped: schema).e2ee_sessions WHERE session_id = \(sessionID)")
    }

    /// Deletes up to `limit` expired sessions (their keys with them); returns how many.
    package func sweep(pool: PostgresPool, limit: Int = 10_000) async throws -> Int {
        try await pool.execute(
            """
            DELETE FROM \(unescaped: schema).e2ee_sessions WHERE ctid IN (
                SELECT ctid FROM \(unescaped: schema).e2ee_sessions WHERE expires_at <= now() LIMIT \(limit))
            """)
    }
}

/// Another replica moved a session's counter while this batch was deciding: retry.
package struct SessionConflict: RetryableError, Sendable, CustomStringConvertible {
    package var description: String { "a session's counter moved concurrently; the batch is retried" }
}
