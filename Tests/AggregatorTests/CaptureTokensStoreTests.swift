import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkPostgres
import Testing

@testable import AggregatorCore

/// ``CaptureTokens``' rows in the real PostgreSQL: a root within the window is what a lookup
/// reads; a derived image's hash joins its token's row without moving its window; a token whose
/// root expired takes a new root in its place, without the old root's hashes. A token used once
/// is in its root's own row alone until a second use writes its token's row.
@Suite("Capture token rows", .timeLimit(.minutes(1)))
struct CaptureTokensStoreTests {
    @Test func anExpiredRootIsReplacedAndItsHashesGoWithIt() async throws {
        let (pool, schema) = try await TransparencyLogTests.schema()
        let tokens = CaptureTokens(schema: schema, key: try .generate(), window: .seconds(3600))
        let (token, other) = (CaptureTokensTests.digest(), CaptureTokensTests.digest())
        let (raw, processed) = (CaptureTokensTests.digest(), CaptureTokensTests.digest())
        let (first, second, third) = (UUID(), UUID(), UUID())
        func load() async throws -> [Data: CaptureTokens.Known] {
            try await pool.transaction { try await tokens.lockAndLoad([token, other], on: $0) }
        }
        func created(_ token: Data) async throws -> Double? {
            try await pool.query(
                """
                SELECT extract(epoch FROM created_at)::float8 FROM \(unescaped: schema).capture_tokens
                WHERE token_digest = \(token)
                """
            ).decode(Double.self).first
        }

        try await pool.transaction {
            try await tokens.record(
                [token: .init(root: first, hashes: [raw: 0]), other: .init(root: third, hashes: [raw: 0])], on: $0)
        }
        // A derived image adds its hash under the same root, which keeps its window.
        let started = try await created(token)
        try await pool.transaction {
            try await tokens.record([token: .init(root: first, hashes: [raw: 0, processed: 1])], on: $0)
        }
        var known = try await load()
        #expect(known[token]?.root == first && known[token]?.hashes == [raw: 0, processed: 1])
        #expect(known[other]?.root == third)
        #expect(try await created(token) == started)

        // The window is over for `token` alone: a lookup no longer sees it, and its next use is
        // its new root, with only its own hashes and a window from now.
        _ = try await pool.execute(
            "UPDATE \(unescaped: schema).capture_tokens SET created_at = now() - interval '2 hours' WHERE token_digest = \(token)"
        )
        known = try await load()
        #expect(known[token] == nil && known[other] != nil)
        try await pool.transaction { try await tokens.record([token: .init(root: second, hashes: [processed: 2])], on: $0) }
        known = try await load()
        #expect(known[token]?.root == second && known[token]?.hashes == [processed: 2])
        #expect(known[other]?.root == third && known[other]?.hashes == [raw: 0], "another token's row stays")
        #expect(try await created(token).map { $0 > Date().timeIntervalSince1970 - 600 } == true)
        let rows = try await pool.query(
            "SELECT count(*)::int8 FROM \(unescaped: schema).capture_tokens WHERE token_digest = \(token)")
        let count = try rows.decode(Int64.self).first
        #expect(count == 1, "one row per token")

        // `other`'s root expires and the same submission is its root again (its answer swept,
        // it is sent once more): a new window all the same.
        _ = try await pool.execute(
            "UPDATE \(unescaped: schema).capture_tokens SET created_at = now() - interval '2 hours' WHERE token_digest = \(other)"
        )
        #expect(try await load()[other] == nil)
        try await pool.transaction { try await tokens.record([other: .init(root: third, hashes: [raw: 0])], on: $0) }
        #expect(try await load()[other]?.root == third)
        await TransparencyLogTests.drop(pool, schema)
    }

    /// A token's hashes as stored, and the rows of `capture_hashes` (before version 9) moved
    /// into their token's row.
    @Test func hashesLiveInTheirTokensRowAndOldRowsMoveThere() async throws {
        let hashes = [CaptureTokensTests.digest(): 0, CaptureTokensTests.digest(): 1, CaptureTokensTests.digest(): 255]
        #expect(CaptureTokens.unpack(CaptureTokens.pack(hashes)) == hashes)
        #expect(CaptureTokens.unpack(Data()) == [:])

        let (pool, schema, upgrade) = try await TransparencyLogTests.schema(without: 9)
        let (token, root) = (CaptureTokensTests.digest(), UUID())
        _ = try await pool.execute(
            "INSERT INTO \(unescaped: schema).capture_tokens (token_digest, root) VALUES (\(token), \(root))")
        for (hash, level) in hashes {
            _ = try await pool.execute(
                """
                INSERT INTO \(unescaped: schema).capture_hashes (token_digest, hash_digest, level)
                VALUES (\(token), \(hash), \(Int16(level)))
                """)
        }
        try await upgrade()
        let tokens = CaptureTokens(schema: schema, key: try .generate(), window: .seconds(3600))
        let known = try await pool.transaction { try await tokens.lockAndLoad([token], on: $0) }
        #expect(known[token]?.root == root && known[token]?.hashes == hashes)
        await TransparencyLogTests.drop(pool, schema)
    }

    /// A new root carries its token in its own row, written with the submission: a lookup finds
    /// it there, a token's row is written only once another use adds hashes (and keeps the
    /// root's window), and the sweep forgets the roots' tokens after the window.
    @Test func aTokenUsedOnceLivesInItsRootsRow() async throws {
        let (pool, schema) = try await TransparencyLogTests.schema()
        let tokens = CaptureTokens(schema: schema, key: try .generate(), window: .seconds(3600))
        let ledger = SubmissionLedger(schema: schema)
        let (token, old) = (CaptureTokensTests.digest(), CaptureTokensTests.digest())
        let (raw, processed) = (CaptureTokensTests.digest(), CaptureTokensTests.digest())
        let root = TransparencyLogTests.item([Hex.encode(try SecureRandom.bytes(32))])
        let stale = TransparencyLogTests.item([Hex.encode(try SecureRandom.bytes(32))])
        func load(_ which: [Data]) async throws -> [Data: CaptureTokens.Known] {
            try await pool.transaction { try await tokens.lockAndLoad(which, on: $0) }
        }
        func count(_ sql: PostgresQuery) async throws -> Int64 { try await pool.query(sql).decode(Int64.self).first ?? -1 }

        // Only the root used it: no token row, found in the root's.
        let use = CaptureTokens.Use(
            submission: root.id, token: token, hashes: [(raw, 0)], external: [], holdsInLog: true, logged: [:])
        let carried = CaptureTokens.carried(CaptureTokens.judge([use], known: [:]).tokens, known: [:], uses: [use])
        #expect(carried.rest.isEmpty && carried.roots[root.id]?.token == token)
        _ = try await pool.transaction {
            try await ledger.record(
                [(root, Data(repeating: 1, count: 32), nil), (stale, Data(repeating: 2, count: 32), nil)],
                captures: [root.id: carried.roots[root.id]!, stale.id: (old, CaptureTokens.pack([raw: 0]))], on: $0)
        }
        #expect(try await count("SELECT count(*)::int8 FROM \(unescaped: schema).capture_tokens") == 0)
        let found = try await load([token])[token]
        #expect(found?.root == root.id && found?.hashes == [raw: 0] && found?.since != nil)

        // A derived image in a later batch: the token's row, with the root's window.
        let derived = CaptureTokens.Use(
            submission: UUID(), token: token, hashes: [(processed, 1)], external: [(raw, 1)], holdsInLog: false,
            logged: [:])
        let again = CaptureTokens.judge([derived], known: [token: found!])
        #expect(again.verdicts == [.derived(root: root.id)])
        let split = CaptureTokens.carried(again.tokens, known: [token: found!], uses: [derived])
        #expect(split.roots.isEmpty && split.rest[token]?.hashes == [raw: 0, processed: 1])
        try await pool.transaction { try await tokens.record(split.rest, on: $0) }
        #expect(try await load([token])[token]?.hashes == [raw: 0, processed: 1])
        let windows = try await count(
            """
            SELECT count(*)::int8 FROM \(unescaped: schema).capture_tokens t, \(unescaped: schema).submissions s
            WHERE t.token_digest = \(token) AND s.submission_id = \(root.id)
              AND abs(extract(epoch FROM t.created_at - s.created_at)) < 0.001
            """)
        #expect(windows == 1, "the token's row keeps its root's window")

        // A root and its derived image in one batch: the root's row and the token's row.
        let (other, first) = (CaptureTokensTests.digest(), UUID())
        let batch: [CaptureTokens.Use] = [
            .init(submission: first, token: other, hashes: [(raw, 0)], external: [], holdsInLog: true, logged: [:]),
            .init(
                submission: UUID(), token: other, hashes: [(processed, 1)], external: [(raw, 1)], holdsInLog: false, logged: [:]),
        ]
        let both = CaptureTokens.carried(CaptureTokens.judge(batch, known: [:]).tokens, known: [:], uses: batch)
        #expect(both.roots[first]?.hashes == CaptureTokens.pack([raw: 0]) && both.rest[other]?.hashes == [raw: 0, processed: 1])

        // After the window: a lookup no longer sees the root, and the sweep forgets its token.
        _ = try await pool.execute(
            "UPDATE \(unescaped: schema).submissions SET created_at = now() - interval '2 hours' WHERE submission_id = \(stale.id)"
        )
        #expect(try await load([old]).isEmpty)
        #expect(try await tokens.sweep(limit: 100, on: pool) == 1)
        #expect(
            try await count("SELECT count(*)::int8 FROM \(unescaped: schema).submissions WHERE capture_token IS NOT NULL") == 1)
        #expect(try await load([token])[token]?.root == root.id)
        await TransparencyLogTests.drop(pool, schema)
    }
}
