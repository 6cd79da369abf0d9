import Foundation
import HallmarkCrypto
import HallmarkPostgres
import HallmarkRuntime

/// The E2EE-1 session table, shared by every gateway replica. Each write is one statement,
/// so replicas serving the same session never accept a counter twice or allocate one twice.
public struct SessionStore: Sendable {
    /// What one received counter came to.
    public enum Verdict: String, Sendable, Equatable {
        case accept, replay
        case counterJump = "counter_jump"
        /// No live session (never made, expired or closed).
        case unknownSession = "unknown_session"
    }

    public let schema: String
    public let keyring: KeyEncryptionKeyring

    public init(schema: String, keyring: KeyEncryptionKeyring) {
        self.schema = schema
        self.keyring = keyring
    }

    static func context(_ sessionID: String) -> AtRestContext {
        AtRestContext(table: "e2ee_sessions", column: "session_key", rowId: sessionID)
    }

    /// Stores a new session; false when a live session already has the id (an expired one is
    /// replaced).
    public func create(_ sessionID: String, sessionKey: Data, gatewayPublicKey: Data, expires: Date,
                       on connection: PostgresConnection) async throws -> Bool {
        let sealed = try AtRestSeal.seal(sessionKey, context: Self.context(sessionID), keyring: keyring)
        return try await connection.execute("""
            INSERT INTO \(unescaped: schema).e2ee_sessions AS s (session_id, sealed_key, gateway_public_key, expires_at)
            VALUES (\(sessionID), \(sealed), \(gatewayPublicKey), \(expires))
            ON CONFLICT (session_id) DO UPDATE
                SET sealed_key = EXCLUDED.sealed_key, gateway_public_key = EXCLUDED.gateway_public_key,
                    recv_counter = -1, send_counter = -1, created_at = now(), expires_at = EXCLUDED.expires_at
                WHERE s.expires_at <= now()
            """) == 1
    }

    /// The key of a live session, unsealed; nil when there is none.
    public func key(_ sessionID: String, pool: PostgresPool) async throws -> Data? {
        let rows = try await pool.query("""
            SELECT sealed_key FROM \(unescaped: schema).e2ee_sessions
            WHERE session_id = \(sessionID) AND expires_at > now()
            """).decode(Data.self)
        guard let sealed = rows.first else { return nil }
        return try AtRestSeal.open(sealed, context: Self.context(sessionID), keyring: keyring)
    }

    /// Checks and records received counters, `items` in the order they arrived (Kafka key
    /// order per session), in one statement: a recursive walk per session from its stored
    /// last counter applies the E2EE-1 rule message by message (over each session's counters
    /// as an array, so a batch costs time linear in its size), and the update stores each
    /// session's new last counter only if the stored one is still what the walk started from.
    /// A concurrent replica that moved it first makes this throw ``SessionConflict``, and the
    /// caller's transaction is retried on the new value.
    public func receive(_ items: [(sessionID: String, counter: UInt64)],
                        on connection: PostgresConnection) async throws -> [Verdict] {
        guard !items.isEmpty else { return [] }
        let ids = PostgresArray(items.map(\.sessionID))
        let counters = PostgresArray(items.map { Int64($0.counter) })
        let rows = try await connection.query("""
            WITH RECURSIVE
            input AS (
                SELECT t.sid, t.ctr, t.ord
                FROM unnest(\(ids)::text[], \(counters)::bigint[]) WITH ORDINALITY AS t(sid, ctr, ord)),
            grouped AS (
                SELECT sid, array_agg(ctr ORDER BY ord) AS ctrs, array_agg(ord ORDER BY ord) AS ords
                FROM input GROUP BY sid),
            start AS (
                SELECT s.session_id AS sid, s.recv_counter AS last FROM \(unescaped: schema).e2ee_sessions s
                WHERE s.session_id IN (SELECT sid FROM grouped) AND s.expires_at > now()),
            walk(sid, n, last, ord, verdict) AS (
                SELECT sid, 0, last, 0::bigint, ''::text FROM start
                UNION ALL
                SELECT w.sid, w.n + 1,
                       CASE WHEN x.c > w.last AND x.c::numeric - w.last < 1000 THEN x.c ELSE w.last END, g.ords[w.n + 1],
                       CASE WHEN x.c <= w.last THEN 'replay' WHEN x.c::numeric - w.last >= 1000 THEN 'counter_jump'
                            ELSE 'accept' END
                FROM walk w JOIN grouped g ON g.sid = w.sid CROSS JOIN LATERAL (SELECT g.ctrs[w.n + 1] AS c) x
                WHERE w.n < cardinality(g.ctrs)),
            final AS (SELECT DISTINCT ON (sid) sid, last FROM walk ORDER BY sid, n DESC),
            updated AS (
                UPDATE \(unescaped: schema).e2ee_sessions s SET recv_counter = f.last
                FROM final f JOIN start st ON st.sid = f.sid
                WHERE s.session_id = f.sid AND s.recv_counter = st.last
                RETURNING s.session_id)
            SELECT w.ord, w.verdict, (SELECT count(*) FROM updated), (SELECT count(*) FROM start)
            FROM walk w WHERE w.n > 0
            UNION ALL SELECT 0, '', (SELECT count(*) FROM updated), (SELECT count(*) FROM start)
            """).decode((Int64, String, Int64, Int64).self)
        guard let summary = rows.last, summary.2 == summary.3 else { throw SessionConflict() }
        var verdicts = [Verdict](repeating: .unknownSession, count: items.count)
        for (ord, verdict, _, _) in rows.dropLast() where ord > 0 {
            verdicts[Int(ord) - 1] = Verdict(rawValue: verdict) ?? .unknownSession
        }
        return verdicts
    }

    /// Allocates the next gateway→client counters: `counts[id]` consecutive ones per session,
    /// in one statement (the row lock orders concurrent replicas). Returns each live session's
    /// first allocated counter.
    public func allocate(_ counts: [String: Int], on connection: PostgresConnection) async throws -> [String: UInt64] {
        guard !counts.isEmpty else { return [:] }
        let ids = counts.keys.sorted()  // a fixed order: concurrent allocators never deadlock
        let rows = try await connection.query("""
            UPDATE \(unescaped: schema).e2ee_sessions s SET send_counter = s.send_counter + i.k
            FROM unnest(\(PostgresArray(ids))::text[], \(PostgresArray(ids.map { Int64(counts[$0]!) }))::bigint[]) AS i(sid, k)
            WHERE s.session_id = i.sid AND s.expires_at > now() AND s.send_counter <= 9223372036854775807 - i.k
            RETURNING s.session_id, s.send_counter - i.k + 1
            """).decode((String, Int64).self)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.0, UInt64($0.1)) })
    }

    /// Deletes up to `limit` expired sessions (their keys with them); returns how many.
    public func sweep(pool: PostgresPool, limit: Int = 10_000) async throws -> Int {
        try await pool.execute("""
            DELETE FROM \(unescaped: schema).e2ee_sessions WHERE ctid IN (
                SELECT ctid FROM \(unescaped: schema).e2ee_sessions WHERE expires_at <= now() LIMIT \(limit))
            """)
    }
}

/// Another replica moved a session's counter while this batch was deciding: retry.
public struct SessionConflict: RetryableError, Sendable, CustomStringConvertible {
    public var description: String { "a session's counter moved concurrently; the batch is retried" }
}
