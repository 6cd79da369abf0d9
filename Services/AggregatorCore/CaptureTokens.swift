import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres

/// DESIGN §2: derived images share their capture's token. The reference Raspberry Pi sends a
/// raw bundle, then a processed one (level 1, parent = the raw hash) with the same token. The
/// first submission of a token (its *root*) is asked about as any other; within ``window``, a
/// submission whose every hash has level ≥ 1 and whose outside parents are hashes of lower level
/// under the token (the root's, or an earlier derived submission's) is *derived*: it is not
/// asked about again and takes the root's outcome (``SubmissionLedger``'s `awaits`). Any other
/// reuse is asked about, and the authority answers `replayed_token`.
///
/// What is kept (`capture_tokens`, `capture_hashes`, swept after the window): keyed digests of
/// the token and of the hashes under it (``SubmissionIDKey/digest(_:_:)``), and the root's id.
/// Never the token. Transactions about the same token are serialised by an advisory lock, so
/// two replicas never both take a token as its root.
package struct CaptureTokens: Sendable {
    /// A recorded submission whose own hashes keep the provenance rule, and its token.
    struct Use: Sendable {
        let submission: UUID
        /// The token's keyed digest.
        let token: Data
        /// Its hashes' keyed digests and levels.
        let hashes: [(digest: Data, level: Int)]
        /// The keyed digests and levels of its parents outside the submission.
        let external: [(parent: Data, level: Int)]
        /// Whether the log holds its outside parents (what a submission needs when not derived).
        let holdsInLog: Bool
        /// The logged level of each outside parent the log holds, by keyed digest.
        let logged: [Data: Int]
    }

    /// What becomes of a use.
    enum Verdict: Sendable, Equatable {
        /// Asked about: a token's root, or a reuse that is not derived (`replayed_token`).
        case ask
        /// Takes the outcome of the token's root.
        case derived(root: UUID)
        /// Neither derived nor with its parents in the log, and no parent can still come: a
        /// parent is known (in the log or under the token) at a level not below its child's.
        case invalidProvenance
        /// A parent is neither in the log nor under the token yet: waits for it (``ParentWaits``).
        case waits
    }

    private struct TokenHash: Hashable {
        let token: Data
        let hash: Data
    }

    /// A token within the window: its root and the lowest level of each hash under it.
    struct Known: Sendable {
        var root: UUID
        var hashes: [Data: Int]
    }

    /// What ``lockAndLoad(_:on:)`` found of some tokens.
    struct Loaded: Sendable {
        /// The tokens within the window.
        var known: [Data: Known] = [:]
        /// The tokens whose root is older than the window: the next root replaces it, and its
        /// hashes go (``record(roots:hashes:replacing:on:)``).
        var expired: Set<Data> = []
    }

    let schema: String
    let key: SubmissionIDKey
    let window: Duration

    package init(schema: String, key: SubmissionIDKey, window: Duration) {
        self.schema = schema
        self.key = key
        self.window = window
    }

    /// The token's keyed digest, over its nonce and ciphertext as the authority's replay key is
    /// (so the same token in another format is the same token); nil when it has no readable parts.
    func digest(_ token: BirthmarkToken) -> Data? {
        (try? token.sealedParts()).map { key.digest("capture-token", $0.nonce + $0.ciphertext) }
    }

    /// A hash's keyed digest.
    func digest(hash hex: String) -> Data {
        key.digest("capture-hash", (try? Hex.decode(hex.lowercased(), length: 32)) ?? Data(hex.utf8))
    }

    /// A recorded submission as a use of `token` (its keyed digest; empty when it has none),
    /// against the logged levels of its outside parents (by hex hash, ``LogStore/parentLevels(_:on:)``).
    func use(_ record: SubmissionRecord, _ provenance: Provenance, token: Data, logged: [String: Int]) -> Use {
        var levels: [Data: Int] = [:]
        for e in provenance.external { if let level = logged[e.parent] { levels[digest(hash: e.parent)] = level } }
        return Use(
            submission: record.id, token: token,
            hashes: record.entries.map { (digest(hash: $0.imageHash), $0.modificationLevel) },
            external: provenance.external.map { (digest(hash: $0.parent), $0.level) },
            holdsInLog: provenance.holds(in: logged), logged: levels)
    }

    /// Judges a batch's uses, in order, against what is known of their tokens: each use sees
    /// the roots and hashes of the uses before it. Returns the verdicts, the new roots and the
    /// hashes now under each token.
    static func judge(
        _ uses: [Use], known: [Data: Known]
    ) -> (
        verdicts: [Verdict], roots: [(token: Data, submission: UUID)], hashes: [(token: Data, hash: Data, level: Int)]
    ) {
        var known = known
        var roots: [(Data, UUID)] = []
        // One row per token and hash (a statement may not update a row twice).
        var added: [TokenHash: Int] = [:]
        let verdicts = uses.map { use -> Verdict in
            guard let token = known[use.token] else {
                guard use.holdsInLog else { return refusal(use, under: [:]) }
                roots.append((use.token, use.submission))
                known[use.token] = Known(root: use.submission, hashes: [:])
                for h in use.hashes { add(h, to: use.token) }
                return .ask
            }
            let derived =
                !use.external.isEmpty && use.hashes.allSatisfy { $0.level >= 1 }
                && use.external.allSatisfy { e in token.hashes[e.parent].map { $0 < e.level } ?? false }
            guard derived else { return use.holdsInLog ? .ask : refusal(use, under: token.hashes) }
            for h in use.hashes { add(h, to: use.token) }
            return .derived(root: token.root)
        }
        func add(_ h: (digest: Data, level: Int), to token: Data) {
            let level = min(known[token]!.hashes[h.digest] ?? .max, h.level)
            known[token]!.hashes[h.digest] = level
            added[TokenHash(token: token, hash: h.digest)] = level
        }
        let hashes = added.map { (token: $0.key.token, hash: $0.key.hash, level: $0.value) }
        return (verdicts, roots, hashes)
    }

    /// What a use that is neither derived nor held by the log gets: it waits while a parent is
    /// known nowhere (it may still come), unless a parent is known at its child's level or above
    /// (that never changes: a hash is logged once).
    static func refusal(_ use: Use, under hashes: [Data: Int]) -> Verdict {
        let levels = use.external.map { e in (e.level, [use.logged[e.parent], hashes[e.parent]].compactMap { $0 }.min()) }
        if levels.contains(where: { level, known in known.map { $0 >= level } ?? false }) { return .invalidProvenance }
        return levels.contains { $0.1 == nil } ? .waits : .invalidProvenance
    }

    /// Locks these tokens for the transaction (in a fixed order: concurrent batches never
    /// deadlock) and reads what is known of them within the window, and which have a root from
    /// before it.
    func lockAndLoad(_ tokens: [Data], on connection: PostgresConnection) async throws -> Loaded {
        guard !tokens.isEmpty else { return Loaded() }
        // The lock key: the digest's first four bytes as an int4 (a collision only serialises).
        let keys = Set(tokens.map { Int64(Int32(bitPattern: $0.prefix(4).reduce(0) { $0 << 8 | UInt32($1) })) }).sorted()
        _ = try await connection.query(
            """
            SELECT pg_advisory_xact_lock(hashtext(\(schema + ":capture-token")), k::integer)
            FROM (SELECT k FROM unnest(\(PostgresArray(keys))) AS k ORDER BY k) s
            """)
        let live: PostgresQuery = "t.created_at > now() - make_interval(secs => \(Double(window.components.seconds)))"
        let rows = try await connection.query(
            """
            SELECT t.token_digest, t.root, \(live), h.hash_digest, h.level
            FROM \(unescaped: schema).capture_tokens t
            LEFT JOIN \(unescaped: schema).capture_hashes h ON h.token_digest = t.token_digest AND \(live)
            WHERE t.token_digest = ANY(\(PostgresArray(tokens)))
            """)
        var loaded = Loaded()
        for (token, root, isLive, hash, level) in try rows.decode((Data, UUID, Bool, Data?, Int16?).self) {
            guard isLive else {
                loaded.expired.insert(token)
                continue
            }
            var k = loaded.known[token] ?? Known(root: root, hashes: [:])
            if let hash, let level { k.hashes[hash] = Int(level) }
            loaded.known[token] = k
        }
        return loaded
    }

    /// Records new roots and hashes under tokens. A token gets a new root only when
    /// ``lockAndLoad(_:on:)`` (under the same lock) found it unknown, so a row it has is an
    /// expired root, among `expired`: replaced in place, and its hashes deleted.
    func record(
        roots: [(token: Data, submission: UUID)], hashes: [(token: Data, hash: Data, level: Int)],
        replacing expired: Set<Data>, on connection: PostgresConnection
    ) async throws {
        // Only the tokens known to have rows: a delete by every new root's token scanned the
        // whole table per batch while it had no statistics, to find nothing (#55).
        let replaced = roots.map(\.token).filter(expired.contains)
        if !replaced.isEmpty {
            try await connection.execute(
                "DELETE FROM \(unescaped: schema).capture_hashes WHERE token_digest = ANY(\(PostgresArray(replaced)))")
        }
        if !roots.isEmpty {
            try await connection.execute(
                """
                INSERT INTO \(unescaped: schema).capture_tokens (token_digest, root)
                SELECT * FROM unnest(\(PostgresArray(roots.map(\.token))), \(PostgresArray(roots.map(\.submission))))
                ON CONFLICT (token_digest) DO UPDATE SET root = EXCLUDED.root, created_at = now()
                """)
        }
        guard !hashes.isEmpty else { return }
        try await connection.execute(
            """
            INSERT INTO \(unescaped: schema).capture_hashes AS c (token_digest, hash_digest, level)
            SELECT t, h, l::smallint
            FROM unnest(\(PostgresArray(hashes.map(\.token))), \(PostgresArray(hashes.map(\.hash))),
                        \(PostgresArray(hashes.map { Int64($0.level) }))) AS u(t, h, l)
            ON CONFLICT (token_digest, hash_digest) DO UPDATE SET level = LEAST(c.level, EXCLUDED.level)
            """)
    }

    /// Deletes up to `limit` tokens older than the window, with their hashes.
    func sweep(limit: Int, on pool: PostgresPool) async throws -> Int {
        try await pool.execute(
            """
            DELETE FROM \(unescaped: schema).capture_tokens WHERE token_digest IN (
                SELECT token_digest FROM \(unescaped: schema).capture_tokens
                WHERE created_at <= now() - make_interval(secs => \(Double(window.components.seconds)))
                LIMIT \(limit))
            """)
    }
}
