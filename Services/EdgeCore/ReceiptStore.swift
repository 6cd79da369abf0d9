import Foundation
import HallmarkCore
import HallmarkPostgres

/// The edge's receipts (`receipts`, ``EdgeMigrations``): each submission it published, by its
/// receipt id (the submission's message id), and the aggregator's answer once it came. What
/// lets any replica, after any restart, answer `GET /api/v1/submission/{receipt_id}`. Only the
/// id and the answer are kept: never the bundle, its token or a device signature.
package struct ReceiptStore: Sendable {
    /// What is known of a receipt.
    package enum Receipt: Sendable, Equatable {
        /// Published; no answer yet.
        case pending
        /// The aggregator's `hallmark.submission.result.v1`, as sent.
        case answered([UInt8])
    }

    let schema: String
    let pool: PostgresPool
    /// Receipts opened by concurrent requests, written together.
    private let opening: GroupCommit<UUID>

    /// The `NOTIFY` channel on which ``record(_:)`` names the receipts it answered.
    package var channel: String { "\(schema)_receipts" }
    /// Receipt ids per notification: 200 of 37 characters stay under PostgreSQL's 8,000 bytes.
    static let idsPerNotification = 200

    package init(schema: String, pool: PostgresPool) {
        self.schema = schema
        self.pool = pool
        opening = GroupCommit { ids in
            try await pool.execute(
                """
                INSERT INTO \(unescaped: schema).receipts (receipt_id)
                SELECT * FROM unnest(\(PostgresArray(ids))) ON CONFLICT DO NOTHING
                """)
        }
    }

    /// Records a receipt before its submission is published.
    package func open(_ id: UUID) async throws { try await opening.submit(id) }

    /// Records a receipt before its submission is published, and calls `done` once it is
    /// (or with the error), from the task that wrote it.
    func open(_ id: UUID, then done: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        opening.submit(id, then: done)
    }

    /// Records the outcomes of receipts that have none, in one statement (the first answer
    /// stays; answers to no receipt are skipped), and names every receipt of the batch on
    /// ``channel``, comma-separated, which PostgreSQL delivers to every replica at commit: the
    /// one whose request waits reads the outcome back (``ReceiptOutcomes``). Receipts that had
    /// their outcome already are named too: a camera that sends the same bundle again waits on
    /// the same receipt, and its answer changes nothing stored. The receipts
    /// stage is the only writer. The rows are locked in receipt order, so two replicas that
    /// record overlapping batches (around a rebalance) never wait on each other in a cycle.
    /// - Returns: the outcomes this call stored (receipts that had one already are left out),
    ///   committed when it returns.
    @discardableResult
    package func record(_ answers: [(receipt: UUID, result: [UInt8])]) async throws -> [(receipt: UUID, result: [UInt8])] {
        guard !answers.isEmpty else { return [] }
        let ids = PostgresArray(answers.map(\.receipt))
        let results = PostgresArray(answers.map { Data($0.result) })
        let rows = try await pool.query(
            """
            WITH a AS (SELECT * FROM unnest(\(ids), \(results)) AS a(id, result)),
            locked AS (
                SELECT r.receipt_id FROM \(unescaped: schema).receipts r
                WHERE r.receipt_id = ANY(\(ids)) AND r.result IS NULL ORDER BY r.receipt_id FOR UPDATE),
            written AS (
                UPDATE \(unescaped: schema).receipts r SET result = a.result
                FROM a, locked WHERE r.receipt_id = a.id AND r.receipt_id = locked.receipt_id
                RETURNING r.receipt_id, r.result),
            told AS (
                SELECT pg_notify(\(channel), string_agg(receipt_id::text, ','))
                FROM (
                    SELECT receipt_id, (row_number() OVER ()) / \(Self.idsPerNotification) AS part
                    FROM \(unescaped: schema).receipts WHERE receipt_id = ANY(\(ids))) w
                GROUP BY part)
            SELECT t.n, w.receipt_id, w.result FROM (SELECT count(*) AS n FROM told) t LEFT JOIN written w ON true
            """
        ).decode((Int64, UUID?, Data?).self)
        // One row even when nothing was written: `told` is a plain query, run only when read.
        return rows.compactMap { _, id, result in id.flatMap { id in result.map { (id, [UInt8]($0)) } } }
    }

    /// The outcomes recorded for `ids` (those still pending, or unknown, are absent).
    package func outcomes(of ids: [UUID]) async throws -> [UUID: [UInt8]] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await pool.query(
            """
            SELECT receipt_id, result FROM \(unescaped: schema).receipts
            WHERE receipt_id = ANY(\(PostgresArray(ids))) AND result IS NOT NULL
            """
        ).decode((UUID, Data).self)
        return Dictionary(rows.map { ($0.0, [UInt8]($0.1)) }, uniquingKeysWith: { first, _ in first })
    }

    /// The receipt, or nil when there is none (never issued, or swept).
    package func lookup(_ id: UUID) async throws -> Receipt? {
        let rows = try await pool.query(
            "SELECT result FROM \(unescaped: schema).receipts WHERE receipt_id = \(id)"
        ).decode(Data?.self)
        guard let row = rows.first else { return nil }
        return row.map { .answered([UInt8]($0)) } ?? .pending
    }

    /// Deletes up to `limit` receipts older than `retention`; returns how many went.
    package func sweep(olderThan retention: Duration, limit: Int) async throws -> Int {
        try await pool.execute(
            """
            DELETE FROM \(unescaped: schema).receipts WHERE receipt_id IN (
                SELECT receipt_id FROM \(unescaped: schema).receipts
                WHERE created_at < now() - \(interval: retention)
                LIMIT \(limit))
            """)
    }
}
