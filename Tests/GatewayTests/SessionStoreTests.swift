import Foundation
@testable import GatewayCore
import HallmarkCrypto
import HallmarkPostgres
import Logging
import Testing

/// The counter compare-and-set against a real PostgreSQL: two stores are two replicas sharing
/// one table, each with its own remembered counters.
@Suite(.timeLimit(.minutes(2)))
struct SessionStoreTests {
    struct Rollback: Error {}

    let pool: PostgresPool
    let schema = "store_\(UInt32.random(in: 0...UInt32.max))"
    let keyring: KeyEncryptionKeyring

    init() async throws {
        pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: Logger(label: "test"))
        keyring = try KeyEncryptionFile.parse(try KeyEncryptionFile.generateText(title: "test", index: false), source: "test")
            .keyring
        try await pool.execute("CREATE SCHEMA \(unescaped: schema)")
        _ = try await PostgresMigrations(schema: schema, migrations: GatewayMigrations.all(schema: schema))
            .apply(on: pool, logger: Logger(label: "test"))
    }

    /// Drops the test's schema and closes the pool.
    func finish() async throws {
        try await pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
        pool.close()
    }

    /// Receives `counters` for `session`, opened with the key of the row's live generation
    /// (or of `generation`).
    func receive(
        _ store: SessionStore, _ counters: [UInt64], session: String = "s",
        generation: Int64? = nil
    ) async throws -> [SessionStore.Verdict] {
        var g = generation ?? 0
        if generation == nil, let live = try await self.generation(session) { g = live }
        return try await pool.transaction { try await store.receive(counters.map { (session, g, $0) }, on: $0) }
    }

    /// The session row's generation.
    func generation(_ session: String) async throws -> Int64? {
        try await pool.query(
            """
            SELECT generation FROM \(unescaped: schema).e2ee_sessions WHERE session_id = \(session)
            """
        ).decode(Int64.self).first
    }

    /// The session's stored last counter.
    func stored(_ session: String) async throws -> Int64? {
        try await pool.query(
            """
            SELECT recv_counter FROM \(unescaped: schema).e2ee_sessions WHERE session_id = \(session)
            """
        ).decode(Int64.self).first
    }

    @discardableResult
    func make(
        _ store: SessionStore, _ session: String = "s", expires: Date = Date().addingTimeInterval(3600),
        key: Data = Data(count: 32)
    ) async throws -> Int64 {
        let made = try await pool.transaction {
            try await store.create(session, sessionKey: key, gatewayPublicKey: Data(count: 32), expires: expires, on: $0)
        }
        return try #require(made)
    }

    @Test func aReplicaWhoseCounterMovedElsewhereDecidesAgainFromTheRow() async throws {
        let a = SessionStore(schema: schema, keyring: keyring), b = SessionStore(schema: schema, keyring: keyring)
        try await make(a)
        #expect(try await receive(a, [0, 1]) == [.accept, .accept])
        // B never saw the session: it reads the row (1) and goes on from there.
        #expect(try await receive(b, [1, 2]) == [.replay, .accept])
        // A remembers 1; the row says 2. Decided from 1, 2 would be accepted twice; the
        // compare-and-set misses, A reads the row and decides again: 2 is a replay.
        #expect(try await receive(a, [2, 3]) == [.replay, .accept])
        #expect(try await receive(b, [3, 4]) == [.replay, .accept])
        #expect(try await stored("s") == 4)
        try await finish()
    }

    @Test func onlyTheSessionsWhoseHintWasStaleAreDecidedAgain() async throws {
        let a = SessionStore(schema: schema, keyring: keyring), b = SessionStore(schema: schema, keyring: keyring)
        try await make(a, "x")
        try await make(a, "y")
        let (gx, gy) = (try await generation("x")!, try await generation("y")!)
        let first = try await pool.transaction { try await a.receive([("x", gx, 0), ("y", gy, 0)], on: $0) }
        #expect(first == [.accept, .accept])
        #expect(try await receive(b, [1, 2, 3], session: "y") == [.accept, .accept, .accept])
        // x's hint is right and matches; y's is stale (0, the row says 3): only y is read again.
        let mixed = try await pool.transaction {
            try await a.receive([("x", gx, 1), ("y", gy, 2), ("x", gx, 2), ("y", gy, 4)], on: $0)
        }
        #expect(mixed == [.accept, .replay, .accept, .accept])
        let (x, y) = (try await stored("x"), try await stored("y"))
        #expect(x == 2 && y == 4)
        try await finish()
    }

    @Test func aRolledBackBatchLeavesNoCounterBehind() async throws {
        let a = SessionStore(schema: schema, keyring: keyring)
        try await make(a)
        #expect(try await receive(a, [0]) == [.accept])
        // The counter is accepted inside a transaction that then rolls back (the stage reruns a
        // batch without its redelivered messages that way): the row keeps 0, and A's
        // remembered 5 must not make 1…5 replays when the batch runs again.
        let g = try #require(try await generation("s"))
        await #expect(throws: Rollback.self) {
            try await pool.transaction { connection in
                #expect(try await a.receive([("s", g, 1), ("s", g, 5)], on: connection) == [.accept, .accept])
                throw Rollback()
            }
        }
        #expect(try await receive(a, [1, 5]) == [.accept, .accept])
        #expect(try await stored("s") == 5)
        try await finish()
    }

    @Test func expiredUnknownAndRemadeSessions() async throws {
        let a = SessionStore(schema: schema, keyring: keyring)
        #expect(try await receive(a, [0], session: "never", generation: 1) == [.unknownSession])
        try await make(a, "short", expires: Date().addingTimeInterval(1))
        #expect(try await receive(a, [0, 1], session: "short") == [.accept, .accept])
        try await pool.execute("UPDATE \(unescaped: schema).e2ee_sessions SET expires_at = now() - interval '1 second'")
        // A remembers the session live; the compare-and-set also checks expiry, and the row
        // read again says there is no live session.
        #expect(try await receive(a, [2], session: "short", generation: try await generation("short")) == [.unknownSession])
        // Taken again after expiry: counters start over, whatever this replica remembered.
        try await make(a, "short")
        #expect(try await receive(a, [0], session: "short") == [.accept])
        // Closed: gone at once, and closing again changes nothing.
        let closed = try await generation("short")
        try await pool.transaction { try await a.close("short", on: $0) }
        #expect(try await receive(a, [1], session: "short", generation: closed) == [.unknownSession])
        try await pool.transaction { try await a.close("short", on: $0) }
        try await finish()
    }

    /// A session id closed and taken again gets a new generation; a counter opened under the
    /// old generation's key is `staleKey` on every replica, whatever the replica remembered, and
    /// moves nothing.
    @Test func aClosedSessionsGenerationNeverCountsForTheNext() async throws {
        let a = SessionStore(schema: schema, keyring: keyring), b = SessionStore(schema: schema, keyring: keyring)
        let first = try await make(a)
        #expect(try await receive(a, [0], generation: first) == [.accept])
        #expect(try await receive(b, [1], generation: first) == [.accept])
        try await pool.transaction { try await a.close("s", on: $0) }
        let second = try await make(a)
        #expect(second != first)
        // B remembers (first, 1); the row is (second, -1).
        #expect(try await receive(b, [2, 5], generation: first) == [.staleKey, .staleKey])
        #expect(try await receive(a, [2], generation: first) == [.staleKey])
        #expect(try await stored("s") == -1)
        #expect(try await receive(b, [0, 1], generation: second) == [.accept, .accept])
        #expect(try await receive(a, [1, 2], generation: second) == [.replay, .accept])
        try await finish()
    }

    /// Retention: the sweeper deletes expired sessions, sealed keys with them, and keeps live
    /// ones (docs/privacy.md, the gateway's inventory).
    @Test func sweepDeletesOnlyExpiredSessions() async throws {
        let store = SessionStore(schema: schema, keyring: keyring)
        for (id, offset) in [("aged-1", -3600.0), ("aged-2", -1.0), ("live", 3600.0)] {
            #expect(
                try await pool.withConnection { connection in
                    try await store.create(
                        id, sessionKey: Data(repeating: 7, count: 32), gatewayPublicKey: Data(repeating: 9, count: 32),
                        expires: Date() + offset, on: connection)
                } != nil)
        }
        #expect(try await store.sweep(pool: pool) == 2)
        let left = try await pool.query("SELECT session_id FROM \(unescaped: schema).e2ee_sessions").decode(String.self)
        #expect(left == ["live"])
        #expect(try await store.sweep(pool: pool) == 0)
        try await finish()
    }
}
