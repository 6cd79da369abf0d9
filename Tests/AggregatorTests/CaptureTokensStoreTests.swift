import Foundation
import HallmarkCrypto
import HallmarkPostgres
import Testing

@testable import AggregatorCore

/// ``CaptureTokens``' rows in the real PostgreSQL: a root within the window is what a lookup
/// reads; a derived image's hash joins its token's row without moving its window; a token whose
/// root expired takes a new root in its place, without the old root's hashes.
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
}
