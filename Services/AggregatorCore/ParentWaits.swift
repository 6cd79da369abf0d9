import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// DESIGN §2: "A refusal that depends on state that can still change is not final." A
/// submission whose own hashes keep the provenance rule but that names a parent known nowhere
/// yet (neither in the log nor under its token: a processed bundle read before its raw one,
/// since cameras' networks reorder) is not refused at once. It is recorded `validating` and
/// waits here (`provenance_waits`) for ``AggregatorConfiguration/provenanceWindow``;
/// ``ParentWaiter`` judges it again once a parent may be known, and refuses it
/// `invalid_provenance` when the window is over (``SubmissionLedger/withdraw(_:on:)``: not
/// recorded, so the same bytes sent again are judged again).
///
/// A wait keeps the token request to send once it is judged (the token is kept only while it
/// waits, as an asking submission's row keeps it) and, to find the waits whose parents came, the
/// parents' raw hashes (for the log) and keyed digests with the token's (for the token's
/// hashes, ``CaptureTokens``).
package struct ParentWaits: Sendable {
    /// One waiting submission.
    struct Wait: Sendable {
        let submission: UUID
        /// The token request, as the intake made it (sent once the submission is asked about).
        let request: [UInt8]
        let correlationID: UUID
        /// The token's keyed digest (``CaptureTokens/digest(_:)``); nil when it has none.
        let token: Data?
        /// The outside parents, raw (32 bytes each).
        let parents: [Data]
        /// The outside parents' keyed digests (``CaptureTokens/digest(hash:)``).
        let parentDigests: [Data]
    }

    /// A wait locked for judging.
    struct Locked: Sendable {
        let submission: UUID
        let request: [UInt8]
        let correlationID: UUID
        /// Whether its window is over.
        let expired: Bool
        /// Its window's end in Unix milliseconds: names this wait in its refusal's id, so a
        /// refusal sent again has the same id and the next wait's has another.
        let due: Int64
    }

    let schema: String
    let window: Duration

    /// Records waits in the caller's transaction (one statement each: a wait is rare, and each
    /// row holds arrays).
    func record(_ waits: [Wait], on connection: PostgresConnection) async throws {
        for w in waits {
            try await connection.execute(
                """
                INSERT INTO \(unescaped: schema).provenance_waits
                    (submission_id, due, request, correlation_id, token_digest, parents, parent_digests)
                VALUES (\(w.submission), now() + \(interval: window), \(Data(w.request)),
                        \(w.correlationID), \(w.token), \(PostgresArray(w.parents)), \(PostgresArray(w.parentDigests)))
                ON CONFLICT (submission_id) DO NOTHING
                """)
        }
    }

    /// Up to `limit` waits worth judging now, with their tokens' digests, oldest first: those
    /// with a parent now in the log or under their token, and those whose window is over.
    /// (A token's hashes are records of ``CaptureTokens/packedHashSize`` bytes in its row, or
    /// in its root's while only the root used it.)
    func ready(limit: Int, on connection: PostgresConnection) async throws -> [(submission: UUID, token: Data?)] {
        let size = Int32(CaptureTokens.packedHashSize)
        let rows = try await connection.query(
            """
            SELECT w.submission_id, w.token_digest FROM \(unescaped: schema).provenance_waits w
            WHERE w.due <= now()
               OR EXISTS (SELECT 1 FROM \(unescaped: schema).leaves l WHERE l.image_hash = ANY(w.parents))
               OR EXISTS (SELECT 1 FROM \(unescaped: schema).capture_tokens t,
                                        generate_series(0, length(t.hashes) / \(size) - 1) AS i
                          WHERE t.token_digest = w.token_digest
                            AND substr(t.hashes, \(size) * i::int4 + 1, \(size) - 1) = ANY(w.parent_digests))
               OR EXISTS (SELECT 1 FROM \(unescaped: schema).submissions s,
                                        generate_series(0, length(s.capture_hashes) / \(size) - 1) AS i
                          WHERE s.capture_token = w.token_digest
                            AND substr(s.capture_hashes, \(size) * i::int4 + 1, \(size) - 1) = ANY(w.parent_digests))
            ORDER BY w.due LIMIT \(limit)
            """)
        return try rows.decode((UUID, Data?).self).map { (submission: $0.0, token: $0.1) }
    }

    /// Locks these waits for the caller's transaction, skipping those another pass holds.
    func lock(_ ids: [UUID], on connection: PostgresConnection) async throws -> [Locked] {
        guard !ids.isEmpty else { return [] }
        let rows = try await connection.query(
            """
            SELECT submission_id, request, correlation_id, due <= now(), (extract(epoch FROM due) * 1000)::bigint
            FROM \(unescaped: schema).provenance_waits WHERE submission_id = ANY(\(PostgresArray(ids)))
            ORDER BY submission_id FOR UPDATE SKIP LOCKED
            """)
        return try rows.decode((UUID, Data, UUID, Bool, Int64).self).map {
            Locked(submission: $0.0, request: [UInt8]($0.1), correlationID: $0.2, expired: $0.3, due: $0.4)
        }
    }

    /// Ends these waits (their submissions were judged).
    func remove(_ ids: [UUID], on connection: PostgresConnection) async throws {
        guard !ids.isEmpty else { return }
        try await connection.execute(
            "DELETE FROM \(unescaped: schema).provenance_waits WHERE submission_id = ANY(\(PostgresArray(ids)))")
    }
}
