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
    /// Receipts opened by concurrent requests, and outcomes heard by them, written together.
    private let opening: GroupCommit<UUID>
    private let answering: GroupCommit<(receipt: UUID, result: [UInt8])>
    /// Outcomes this replica's requests wrote, which the receipts stage need not write again.
    private let recent = RecentReceipts()

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
        let recent = self.recent
        answering = GroupCommit { answers in
            let written = try await Self.record(answers, schema: schema, heardBy: .request, pool: pool)
            recent.insert(written)
        }
    }

    /// Records a receipt before its submission is published.
    package func open(_ id: UUID) async throws { try await opening.submit(id) }

    /// Records an outcome heard by the request waiting for it (the first answer stays).
    package func answered(_ id: UUID, result: [UInt8]) async throws { try await answering.submit((id, result)) }

    /// Records answers read by the receipts stage (the first answer stays; answers to no
    /// receipt, and those a request of this replica already wrote, are skipped).
    package func record(_ answers: [(receipt: UUID, result: [UInt8])]) async throws {
        let left = recent.removingKnown(answers, id: \.receipt)
        guard !left.isEmpty else { return }
        _ = try await Self.record(left, schema: schema, heardBy: .stage, pool: pool)
    }

    /// Who writes an outcome: the stage waits for rows a request holds (that request may yet
    /// fail); a request skips rows the stage holds (it writes the same answer).
    private enum Writer { case request, stage }

    /// Writes the outcomes of receipts that have none, in one statement; returns the receipts
    /// written. Both writers lock the rows in receipt order before writing, so two statements
    /// never wait on each other in a cycle (PostgreSQL would find the deadlock only after
    /// `deadlock_timeout`, a second, and abort one).
    private static func record(
        _ answers: [(receipt: UUID, result: [UInt8])], schema: String, heardBy writer: Writer, pool: PostgresPool
    ) async throws -> [UUID] {
        guard !answers.isEmpty else { return [] }
        let ids = PostgresArray(answers.map(\.receipt))
        let results = PostgresArray(answers.map { Data($0.result) })
        // The locking clause is one of two literals (queries take only identifiers unescaped).
        let rows: PostgresRows
        switch writer {
        case .request:
            rows = try await pool.query(
                """
                WITH a AS (SELECT * FROM unnest(\(ids), \(results)) AS a(id, result)),
                locked AS (
                    SELECT r.receipt_id FROM \(unescaped: schema).receipts r
                    WHERE r.receipt_id = ANY(\(ids)) AND r.result IS NULL ORDER BY r.receipt_id FOR UPDATE SKIP LOCKED)
                UPDATE \(unescaped: schema).receipts r SET result = a.result
                FROM a, locked WHERE r.receipt_id = a.id AND r.receipt_id = locked.receipt_id
                RETURNING r.receipt_id
                """)
        case .stage:
            rows = try await pool.query(
                """
                WITH a AS (SELECT * FROM unnest(\(ids), \(results)) AS a(id, result)),
                locked AS (
                    SELECT r.receipt_id FROM \(unescaped: schema).receipts r
                    WHERE r.receipt_id = ANY(\(ids)) AND r.result IS NULL ORDER BY r.receipt_id FOR UPDATE)
                UPDATE \(unescaped: schema).receipts r SET result = a.result
                FROM a, locked WHERE r.receipt_id = a.id AND r.receipt_id = locked.receipt_id
                RETURNING r.receipt_id
                """)
        }
        return try rows.decode(UUID.self)
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
                WHERE created_at < now() - make_interval(secs => \(Double(retention.components.seconds)))
                LIMIT \(limit))
            """)
    }
}
