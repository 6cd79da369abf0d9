import Foundation
import HallmarkCrypto
import HallmarkPostgres
import Testing

@testable import AggregatorCore

/// ``CaptureTokens``' rows in the real PostgreSQL: a root within the window is what a lookup
/// reads; a token whose root expired takes a new root in its place, without the old root's
/// hashes.
@Suite("Capture token rows", .timeLimit(.minutes(1)))
struct CaptureTokensStoreTests {
    @Test func anExpiredRootIsReplacedAndItsHashesGoWithIt() async throws {
        let (pool, schema) = try await TransparencyLogTests.schema()
        let tokens = CaptureTokens(schema: schema, key: try .generate(), window: .seconds(3600))
        let (token, other) = (CaptureTokensTests.digest(), CaptureTokensTests.digest())
        let (raw, processed) = (CaptureTokensTests.digest(), CaptureTokensTests.digest())
        let (first, second, third) = (UUID(), UUID(), UUID())
        func load() async throws -> CaptureTokens.Loaded {
            try await pool.transaction { try await tokens.lockAndLoad([token, other], on: $0) }
        }

        try await pool.transaction {
            try await tokens.record(
                roots: [(token, first), (other, third)], hashes: [(token, raw, 0), (token, processed, 1), (other, raw, 0)],
                replacing: [], on: $0)
        }
        var loaded = try await load()
        #expect(loaded.expired.isEmpty)
        var known = loaded.known
        #expect(known[token]?.root == first && known[token]?.hashes == [raw: 0, processed: 1])
        #expect(known[other]?.root == third)

        // The window is over for `token` alone: a lookup no longer sees it, and its next use is
        // its new root, with only its own hashes.
        _ = try await pool.execute(
            "UPDATE \(unescaped: schema).capture_tokens SET created_at = now() - interval '2 hours' WHERE token_digest = \(token)"
        )
        loaded = try await load()
        #expect(loaded.known[token] == nil && loaded.known[other] != nil && loaded.expired == [token])
        try await pool.transaction {
            try await tokens.record(
                roots: [(token, second)], hashes: [(token, processed, 2)], replacing: loaded.expired, on: $0)
        }
        loaded = try await load()
        #expect(loaded.expired.isEmpty)
        known = loaded.known
        #expect(known[token]?.root == second && known[token]?.hashes == [processed: 2])
        #expect(known[other]?.root == third && known[other]?.hashes == [raw: 0], "another token's rows stay")
        let rows = try await pool.query(
            "SELECT count(*)::int8 FROM \(unescaped: schema).capture_tokens WHERE token_digest = \(token)")
        let count = try rows.decode(Int64.self).first
        #expect(count == 1, "one row per token")
        await TransparencyLogTests.drop(pool, schema)
    }
}
