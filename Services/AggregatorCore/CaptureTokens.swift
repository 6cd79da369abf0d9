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
/// reuse is asked about, and the authority answers `replayed_token`. A certificate bundle's
/// capture (DESIGN BM-CERT: its certificate and capture time, ``digest(certificate:timestamp:)``)
/// is judged the same way, and its same hash sent again is derived too (``Use/repeats``): a
/// `duplicate`, not a new question for the authority.
///
/// What is kept, for the window: keyed digests of the token and of the hashes under it
/// (``SubmissionIDKey/digest(_:_:)``), and the root's id; never the token. A token only its
/// root used is in the root's own `submissions` row (`capture_token`, `capture_hashes`,
/// written with the submission: most captures are one image); a token used again has a
/// `capture_tokens` row, which comes first. Swept after the window. Transactions about the
/// same token are serialised by an advisory lock, so two replicas never both take a token as
/// its root.
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
        /// Whether its capture's hashes sent again are derived too: a certificate bundle's
        /// capture (DESIGN BM-CERT: the same certificate, hash and time again is a `duplicate`,
        /// and the authority is not asked again). A token's are asked (`replayed_token`).
        var repeats = false

        /// Its hashes' lowest levels, by keyed digest (what it adds under its token).
        var levels: [Data: Int] {
            Dictionary(hashes.map { ($0.digest, $0.level) }, uniquingKeysWith: min)
        }
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

    /// A token within the window: its root and the lowest level of each hash under it.
    struct Known: Sendable {
        var root: UUID
        var hashes: [Data: Int]
        /// When the root's window began, for a token known from its root's row alone (its
        /// `capture_tokens` row, once written, keeps that start); nil otherwise.
        var since: Date? = nil
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
    func use(
        _ record: SubmissionRecord, _ provenance: Provenance, token: Data, logged: [String: Int], repeats: Bool = false
    ) -> Use {
        var levels: [Data: Int] = [:]
        for e in provenance.external { if let level = logged[e.parent] { levels[digest(hash: e.parent)] = level } }
        return Use(
            submission: record.id, token: token,
            hashes: record.entries.map { (digest(hash: $0.imageHash), $0.modificationLevel) },
            external: provenance.external.map { (digest(hash: $0.parent), $0.level) },
            holdsInLog: provenance.holds(in: logged), logged: levels, repeats: repeats)
    }

    /// A certificate bundle's capture (DESIGN BM-CERT): its certificate's DER (however it was
    /// sent) and its capture time, keyed: the certificate itself is never kept.
    func digest(certificate der: [UInt8], timestamp: UInt64) -> Data {
        var bytes = der
        withUnsafeBytes(of: timestamp.bigEndian) { bytes.append(contentsOf: $0) }
        return key.digest("capture-certificate", bytes)
    }

    /// Judges a batch's uses, in order, against what is known of their tokens: each use sees
    /// the roots and hashes of the uses before it. Returns the verdicts and, for each token a
    /// use took as its root or added hashes to, its root and every hash now under it.
    static func judge(_ uses: [Use], known: [Data: Known]) -> (verdicts: [Verdict], tokens: [Data: Known]) {
        var known = known
        var touched = Set<Data>()
        func add(_ use: Use) {
            touched.insert(use.token)
            known[use.token]!.hashes.merge(use.levels, uniquingKeysWith: min)
        }
        let verdicts = uses.map { use -> Verdict in
            guard let token = known[use.token] else {
                guard use.holdsInLog else { return refusal(use, under: [:]) }
                known[use.token] = Known(root: use.submission, hashes: [:])
                add(use)
                return .ask
            }
            let repeated = use.repeats && use.hashes.allSatisfy { token.hashes[$0.digest] == $0.level }
            let derived =
                repeated
                || !use.external.isEmpty && use.hashes.allSatisfy { $0.level >= 1 }
                    && use.external.allSatisfy { e in token.hashes[e.parent].map { $0 < e.level } ?? false }
            guard derived else { return use.holdsInLog ? .ask : refusal(use, under: token.hashes) }
            add(use)
            return .derived(root: token.root)
        }
        return (verdicts, known.filter { touched.contains($0.key) })
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
    /// deadlock) and reads those known within the window. A token whose root is older is
    /// unknown: its next use is its new root.
    func lockAndLoad(_ tokens: [Data], on connection: PostgresConnection) async throws -> [Data: Known] {
        guard !tokens.isEmpty else { return [:] }
        // The lock key: the digest's first four bytes as an int4 (a collision only serialises).
        let keys = Set(tokens.map { Int64(Int32(bitPattern: $0.prefix(4).reduce(0) { $0 << 8 | UInt32($1) })) }).sorted()
        _ = try await connection.query(
            """
            SELECT pg_advisory_xact_lock(hashtext(\(schema + ":capture-token")), k::integer)
            FROM (SELECT k FROM unnest(\(PostgresArray(keys))) AS k ORDER BY k) s
            """)
        // A token's row first; a token used once is in its root's row (only a root's row
        // carries its token; the earliest, should an expired one not be swept yet). One
        // statement, planned at each run, as the ledger's updates by id are (a plan kept from a
        // young table scans it for every token).
        let select: PostgresQuery = """
            SELECT token_digest, root, hashes, NULL::timestamptz FROM \(unescaped: schema).capture_tokens
            WHERE token_digest = ANY(\(PostgresArray(tokens))) AND created_at > \(windowStart)
            UNION ALL
            (SELECT DISTINCT ON (capture_token) capture_token, submission_id, capture_hashes, created_at
             FROM \(unescaped: schema).submissions
             WHERE capture_token = ANY(\(PostgresArray(tokens))) AND created_at > \(windowStart)
             ORDER BY capture_token, created_at, submission_id)
            """
        var known: [Data: Known] = [:], inRoots: [Data: Known] = [:]
        for (token, root, packed, since) in try await connection.query(select.plannedEachRun())
            .decode((Data, UUID, Data, Date?).self)
        {
            if let since {
                inRoots[token] = Known(root: root, hashes: Self.unpack(packed), since: since)
            } else {
                known[token] = Known(root: root, hashes: Self.unpack(packed))
            }
        }
        return known.merging(inRoots) { row, _ in row }
    }

    /// Of the tokens a batch's judgement touched (``judge(_:known:)``), what its new roots
    /// carry in their own rows (``SubmissionLedger/record(_:captures:on:)``), by root, and
    /// the tokens ``record(_:on:)`` must still write: a token unknown before (`known`) that
    /// gained no hash but its root's needs no row of its own.
    static func carried(
        _ touched: [Data: Known], known: [Data: Known], uses: [Use]
    ) -> (roots: [UUID: (token: Data, hashes: Data)], rest: [Data: Known]) {
        var roots: [UUID: (token: Data, hashes: Data)] = [:], rest: [Data: Known] = [:]
        let bySubmission = Dictionary(uses.map { ($0.submission, $0) }) { first, _ in first }
        for (token, state) in touched {
            guard known[token] == nil, let use = bySubmission[state.root], use.token == token else {
                rest[token] = state
                continue
            }
            let own = use.levels
            roots[state.root] = (token, pack(own))
            if own != state.hashes { rest[token] = state }
        }
        return (roots, rest)
    }

    /// Writes the tokens a judgement touched (``judge(_:known:)``), a row each with every hash
    /// under it. A token ``lockAndLoad(_:on:)`` found within the window (under the same lock and
    /// in the same transaction, so at the same `now()`) only gained hashes and keeps its root's
    /// window, as does one known from its root's row (from ``Known/since``); any other (a new
    /// token, or one whose root expired, replaced even by the same submission sent again) takes
    /// a new root and starts its window now.
    func record(_ tokens: [Data: Known], on connection: PostgresConnection) async throws {
        guard !tokens.isEmpty else { return }
        let list = Array(tokens)
        // Microseconds since 1970; 0 for none (now).
        let since = list.map { $0.value.since.map { Int64(($0.timeIntervalSince1970 * 1e6).rounded()) } ?? 0 }
        try await connection.execute(
            """
            INSERT INTO \(unescaped: schema).capture_tokens AS t (token_digest, root, hashes, created_at)
            SELECT d, r, h, CASE WHEN s > 0 THEN to_timestamp(s / 1e6) ELSE now() END
            FROM unnest(\(PostgresArray(list.map(\.key))), \(PostgresArray(list.map(\.value.root))),
                        \(PostgresArray(list.map { Self.pack($0.value.hashes) })), \(PostgresArray(since))) AS u(d, r, h, s)
            ON CONFLICT (token_digest) DO UPDATE SET root = EXCLUDED.root, hashes = EXCLUDED.hashes,
                created_at = CASE WHEN t.created_at > \(windowStart) THEN t.created_at ELSE EXCLUDED.created_at END
            """)
    }

    /// The start of the window as of the transaction's `now()`: a root created after it is live.
    private var windowStart: PostgresQuery {
        "now() - \(interval: window)"
    }

    /// The bytes of one packed hash (``pack(_:)``): a 32-byte keyed digest and a level byte.
    static let packedHashSize = 33

    /// A token's hashes as stored: per hash, its 32-byte keyed digest and its level (a byte),
    /// so a token is one row however many images share it.
    static func pack(_ hashes: [Data: Int]) -> Data {
        var out = Data(capacity: packedHashSize * hashes.count)
        for (digest, level) in hashes {
            out.append(digest)
            out.append(UInt8(clamping: level))
        }
        return out
    }

    /// The hashes ``pack(_:)`` stored.
    static func unpack(_ packed: Data) -> [Data: Int] {
        let bytes = [UInt8](packed)
        var out: [Data: Int] = [:]
        let size = packedHashSize
        for start in stride(from: 0, to: bytes.count - bytes.count % size, by: size) {
            out[Data(bytes[start..<start + size - 1])] = Int(bytes[start + size - 1])
        }
        return out
    }

    /// Forgets up to `limit` tokens older than the window (their hashes are in their rows), and
    /// up to `limit` kept in their roots' rows; returns how many went.
    func sweep(limit: Int, on pool: PostgresPool) async throws -> Int {
        let rows = try await pool.execute(
            """
            DELETE FROM \(unescaped: schema).capture_tokens WHERE token_digest IN (
                SELECT token_digest FROM \(unescaped: schema).capture_tokens
                WHERE created_at <= \(windowStart)
                LIMIT \(limit))
            """)
        let roots = try await pool.execute(
            """
            UPDATE \(unescaped: schema).submissions SET capture_token = NULL, capture_hashes = NULL
            WHERE submission_id IN (
                SELECT submission_id FROM \(unescaped: schema).submissions
                WHERE capture_token IS NOT NULL AND created_at <= \(windowStart)
                LIMIT \(limit))
            """)
        return rows + roots
    }
}
