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
        package let key: Key
        package let messageID: UUID

        package init(key: Key, messageID: UUID) {
            self.key = key
            self.messageID = messageID
        }
    }

    /// A replay key: a SHA-256 digest as four big-endian words, so that a batch's keys are
    /// sorted, compared and grouped without the heap (as `Data` they were a tenth of the
    /// authority's CPU under load, mostly hashing).
    package struct Key: Sendable, Comparable {
        let words: (UInt64, UInt64, UInt64, UInt64)

        /// The key of a 32-byte digest; nil for any other length.
        package init?(_ digest: Data) {
            guard digest.count == 32 else { return nil }
            words = digest.withUnsafeBytes { b in
                func word(_ i: Int) -> UInt64 { UInt64(bigEndian: b.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self)) }
                return (word(0), word(1), word(2), word(3))
            }
        }

        /// The digest's bytes.
        var bytes: (UInt64, UInt64, UInt64, UInt64) {
            (words.0.bigEndian, words.1.bigEndian, words.2.bigEndian, words.3.bigEndian)
        }

        package static func == (a: Key, b: Key) -> Bool { a.words == b.words }
        /// Byte order.
        package static func < (a: Key, b: Key) -> Bool { a.words < b.words }
    }

    /// A token's replay key: a hash of its nonce and ciphertext (the tag is left out: a GCM tag
    /// is bound to both, and a token with a changed tag fails authentication anyway).
    package static func key(_ parts: AESGCM256.Sealed) -> Key {
        Key(SHA256Hash.digest(parts: [domain, parts.nonce, parts.ciphertext]))!
    }

    private static let domain = Data("hallmark-replay-v1".utf8)

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
        // Claims by key, the first of each key first: its first claim goes to the database and
        // the rest follow it. One key order for every batch, so concurrent batches never
        // deadlock on each other.
        let order = claims.indices.sorted { a, b in
            claims[a].key != claims[b].key ? claims[a].key < claims[b].key : a < b
        }
        var firsts: [Int] = [], group = [Int](repeating: 0, count: claims.count)
        firsts.reserveCapacity(claims.count)
        for i in order {
            if firsts.isEmpty || claims[firsts[firsts.count - 1]].key != claims[i].key { firsts.append(i) }
            group[i] = firsts.count - 1
        }
        // Most keys are new: one insert records them, and the few it cannot (a record holds
        // them already) are settled by the full statement.
        var won = [Outcome?](repeating: .fresh, count: firsts.count)
        let held = try await insertNew(firsts.map { claims[$0] })
        if !held.isEmpty {
            for g in held { won[g] = nil }
            for (n, outcome) in try await settle(held.map { claims[firsts[$0]] }) { won[held[n]] = outcome }
        }
        // A key not won is a replay for every claim of it. A won key is the first claim's; a
        // message sent several times into one batch is one validation, so its copies are its
        // redeliveries (each copy counted was a count too many), and other messages' replays.
        return claims.indices.map { i in
            let g = group[i], first = firsts[g]
            guard let outcome = won[g], claims[i].messageID == claims[first].messageID else { return .replayed }
            return i == first ? outcome : .redelivered
        }
    }

    /// `input AS (…)`: the claims as rows (`i`, `token_hash`, `message_id`). The keys and ids
    /// travel packed in two parameters rather than as thousands of parameters: PostgreSQL then
    /// parses and plans a small statement for any batch size.
    private static func input(_ claims: [Claim]) -> PostgresQuery {
        var keys: [UInt8] = [], ids: [UInt8] = []
        keys.reserveCapacity(claims.count * 32)
        ids.reserveCapacity(claims.count * 16)
        for claim in claims {
            withUnsafeBytes(of: claim.key.bytes) { keys.append(contentsOf: $0) }
            withUnsafeBytes(of: claim.messageID.uuid) { ids.append(contentsOf: $0) }
        }
        return """
            input AS (
                SELECT i, substring(p.keys FROM i * 32 + 1 FOR 32) AS token_hash,
                       encode(substring(p.ids FROM i * 16 + 1 FOR 16), 'hex')::uuid AS message_id
                FROM (SELECT \(Data(keys))::bytea AS keys, \(Data(ids))::bytea AS ids) p,
                     generate_series(0, \(claims.count)::integer - 1) AS i
            )
            """
    }

    /// Records the keys no record holds (fresh), in one insert; the positions of those a record
    /// holds already, which ``settle(_:)`` decides. Cheaper than settling every key: no probe
    /// of the table before writing, no joins.
    private func insertNew(_ claims: [Claim]) async throws -> [Int] {
        let rows = try await pool.query(
            """
            WITH \(Self.input(claims)), inserted AS (
                INSERT INTO \(unescaped: schema).seen_tokens (token_hash, message_id, expires_at)
                SELECT token_hash, message_id, now() + \(Double(windowSeconds)) * interval '1 second' FROM input
                ON CONFLICT (token_hash) DO NOTHING
                RETURNING token_hash
            )
            SELECT n.i FROM input n WHERE NOT EXISTS (SELECT 1 FROM inserted x WHERE x.token_hash = n.token_hash)
            """)
        // In key order, as every statement takes its keys.
        let positions: [Int64] = try rows.decode(Int64.self)
        let held = positions.map { Int($0) }
        return held.filter { claims.indices.contains($0) }.sorted()
    }

    /// Decides keys a record holds: the same message's live record is a redelivery, an expired
    /// record is taken over (fresh), and another message's live record makes the claim a
    /// replay (left out). `live` is the statement's snapshot before the upsert. It probes the
    /// primary key once per input row (the LIMIT keeps the lateral subquery from being
    /// flattened into a join): as a join, a table growing faster than its statistics led the
    /// planner to hash every live record of the window for each batch. A key comes back as its
    /// position among the keys sent: a number is cheaper to read than a digest in hex.
    private func settle(_ claims: [Claim]) async throws -> [(Int, Outcome)] {
        let rows = try await pool.query(
            """
            WITH \(Self.input(claims)), live AS (
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
            SELECT n.i, l.token_hash IS NOT NULL
            FROM claimed c JOIN input n USING (token_hash) LEFT JOIN live l USING (token_hash)
            """)
        return try rows.decode((Int, Bool).self).filter { claims.indices.contains($0.0) }.map {
            ($0.0, $0.1 ? .redelivered : .fresh)
        }
    }
}
