import Foundation
import HallmarkCrypto
import HallmarkPostgres

/// Replay detection for a batch of validations: one statement records every token's replay
/// key and message id in `seen_tokens`.
///
/// A key is fresh when it was never recorded, when its record expired (the window is
/// `HALLMARK_AUTHORITY_REPLAY_WINDOW_S`), or when the record holds the same message id: a
/// redelivered message is judged again exactly as the first time, never as a replay. Within
/// one batch, the first claim of a key decides; later claims of that key by other messages
/// are replays, and by the same message its redeliveries.
package struct ReplayLedger: Sendable {
    /// One token's claim.
    package struct Claim: Sendable {
        package let key: Data
        package let messageID: UUID

        package init(key: Data, messageID: UUID) {
            self.key = key
            self.messageID = messageID
        }
    }

    /// Replay keys are SHA-256 digests.
    static let keyLength = 32

    /// A token's replay key: a hash of its nonce and ciphertext (the tag is left out: a GCM tag
    /// is bound to both, and a token with a changed tag fails authentication anyway).
    package static func key(_ parts: AESGCM256.Sealed) -> Data {
        SHA256Hash.digest(Data("hallmark-replay-v1".utf8) + parts.nonce + parts.ciphertext)
    }

    let pool: PostgresPool
    let schema: String
    let windowSeconds: Int

    /// Creates a ledger over `schema`.seen_tokens.
    package init(pool: PostgresPool, schema: String, windowSeconds: Int) {
        self.pool = pool
        self.schema = schema
        self.windowSeconds = windowSeconds
    }

    /// What a claim found.
    package enum Outcome: Sendable, Equatable {
        /// The key's first validation within the window.
        case fresh
        /// The same message again (a redelivery, a requester's re-send): judged as the first
        /// time, but not a new validation (it is not counted again).
        case redelivered
        /// Another message with a key already validated within the window.
        case replayed
    }

    /// Records the claims; for each, whether it is fresh, a redelivery or a replay. Throws
    /// when the database cannot be reached (the stage retries the batch; being idempotent by
    /// message id, a retry gives the same answers, though a retried claim counts as a
    /// redelivery).
    package func claim(_ claims: [Claim]) async throws -> [Outcome] {
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
        // `live` is the statement's snapshot before the upsert: a key claimed back by the id
        // already holding it is a redelivery. It probes the primary key once per input row
        // (the LIMIT keeps the lateral subquery from being flattened into a join): as a join,
        // a table growing faster than its statistics led the planner to hash every live record
        // of the window for each batch, the authority's largest cost under load.
        let rows = try await pool.query(
            """
            WITH input AS (
                SELECT substring(p.keys FROM i * 32 + 1 FOR 32) AS token_hash,
                       encode(substring(p.ids FROM i * 16 + 1 FOR 16), 'hex')::uuid AS message_id
                FROM (SELECT \(keys)::bytea AS keys, \(ids)::bytea AS ids) p, generate_series(0, \(order.count)::integer - 1) AS i
            ), live AS (
                SELECT i.token_hash FROM input i CROSS JOIN LATERAL (
                    SELECT 1 FROM \(unescaped: schema).seen_tokens s
                    WHERE s.token_hash = i.token_hash AND s.message_id = i.message_id AND s.expires_at > now() LIMIT 1) s
            ), claimed AS (
                INSERT INTO \(unescaped: schema).seen_tokens AS s (token_hash, message_id, expires_at)
                SELECT token_hash, message_id, now() + \(Double(windowSeconds)) * interval '1 second' FROM input
                ON CONFLICT (token_hash) DO UPDATE SET message_id = EXCLUDED.message_id, expires_at = EXCLUDED.expires_at
                WHERE s.expires_at <= now() OR s.message_id = EXCLUDED.message_id
                RETURNING token_hash
            )
            SELECT c.token_hash, l.token_hash IS NOT NULL FROM claimed c LEFT JOIN live l USING (token_hash)
            """)
        var won: [Data: Outcome] = [:]
        for (key, again) in try rows.decode((Data, Bool).self) { won[key] = again ? .redelivered : .fresh }
        // A message sent several times into one batch is one validation: its first claim
        // decides, the copies are its redeliveries (each copy counted was a count too many).
        var decided = Set<Data>()
        return claims.map { claim in
            guard let outcome = won[claim.key], firstByKey[claim.key] == claim.messageID else { return .replayed }
            return decided.insert(claim.key).inserted ? outcome : .redelivered
        }
    }
}
