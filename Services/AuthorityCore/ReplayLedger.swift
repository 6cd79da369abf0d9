import Foundation
import HallmarkPostgres

/// Replay detection for a batch of validations: one statement records every token's replay
/// key and message id in `seen_tokens`.
///
/// A key is fresh when it was never recorded, when its record expired (the window is
/// `HALLMARK_AUTHORITY_REPLAY_WINDOW_S`), or when the record holds the same message id: a
/// redelivered message is judged again exactly as the first time, never as a replay. Within
/// one batch, the first claim of a key decides; later claims of that key by other messages
/// are replays.
public struct ReplayLedger: Sendable {
    /// One token's claim.
    public struct Claim: Sendable {
        public let key: Data
        public let messageID: UUID

        public init(key: Data, messageID: UUID) {
            self.key = key
            self.messageID = messageID
        }
    }

    /// Replay keys are SHA-256 digests.
    static let keyLength = 32

    let pool: PostgresPool
    let schema: String
    let windowSeconds: Int

    /// Creates a ledger over `schema`.seen_tokens.
    public init(pool: PostgresPool, schema: String, windowSeconds: Int) {
        self.pool = pool
        self.schema = schema
        self.windowSeconds = windowSeconds
    }

    /// Records the claims; for each, true when fresh and false when a replay. Throws when
    /// the database cannot be reached (the stage retries the batch; being idempotent by
    /// message id, a retry gives the same answers).
    public func claim(_ claims: [Claim]) async throws -> [Bool] {
        guard !claims.isEmpty else { return [] }
        // The first claim of each key goes to the database; the rest follow it.
        var firstByKey: [Data: UUID] = [:]
        for claim in claims where firstByKey[claim.key] == nil { firstByKey[claim.key] = claim.messageID }
        // One key order for every batch, so concurrent batches never deadlock on each other.
        guard firstByKey.keys.allSatisfy({ $0.count == Self.keyLength }) else {
            throw PostgresError(code: .invalidQuery, message: "replay keys must be \(Self.keyLength) bytes")
        }
        // Byte order, compared on an 8-byte prefix first (keys are hashes: ties are rare).
        let order = firstByKey.keys.map { key in (key, key.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self).bigEndian }) }
            .sorted { a, b in a.1 != b.1 ? a.1 < b.1 : a.0.lexicographicallyPrecedes(b.0) }
            .map(\.0)
        // The keys and ids travel packed in two parameters rather than as thousands of
        // parameters: PostgreSQL then parses and plans a small statement for any batch size.
        var keys = Data(capacity: order.count * Self.keyLength), ids = Data(capacity: order.count * 16)
        for key in order {
            keys.append(key)
            withUnsafeBytes(of: firstByKey[key]!.uuid) { ids.append(contentsOf: $0) }
        }
        let rows = try await pool.query("""
            INSERT INTO \(unescaped: schema).seen_tokens AS s (token_hash, message_id, expires_at)
            SELECT substring(p.keys FROM i * 32 + 1 FOR 32), encode(substring(p.ids FROM i * 16 + 1 FOR 16), 'hex')::uuid,
                   now() + \(Double(windowSeconds)) * interval '1 second'
            FROM (SELECT \(keys)::bytea AS keys, \(ids)::bytea AS ids) p, generate_series(0, \(order.count)::integer - 1) AS i
            ON CONFLICT (token_hash) DO UPDATE SET message_id = EXCLUDED.message_id, expires_at = EXCLUDED.expires_at
            WHERE s.expires_at <= now() OR s.message_id = EXCLUDED.message_id
            RETURNING token_hash
            """)
        let fresh = Set(try rows.map { try $0.column(0, as: Data.self) })
        return claims.map { fresh.contains($0.key) && firstByKey[$0.key] == $0.messageID }
    }
}
