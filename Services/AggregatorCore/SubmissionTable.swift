import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// SQL over `submissions` (``AggregatorMigrations``): what the aggregator remembers of a
/// submission while it is validated and logged, and its answer afterwards.
struct SubmissionTable: Sendable {
    let schema: String

    typealias Row = SubmissionRecord

    /// Records new submissions with the digest of each one's message; returns the ids that were
    /// new with the digest recorded for each (a batch may hold an id twice: one row wins). The
    /// others were seen before.
    func insert(_ rows: [(row: Row, digest: Data)], on connection: PostgresConnection) async throws -> [UUID: Data] {
        guard !rows.isEmpty else { return [:] }
        let entries = try rows.map { Data(try JSONCoding.encode($0.row.entries)) }
        let result = try await connection.query(
            """
            INSERT INTO \(unescaped: schema).submissions
                (submission_id, status, entries, captured_at, correlation_id, reply_topic, reply_key, request_id, digest)
            SELECT i, 'validating', e, c, r, t, NULLIF(k, ''::bytea), q, d
            FROM unnest(\(PostgresArray(rows.map(\.row.id))), \(PostgresArray(entries)),
                        \(PostgresArray(rows.map { Int64(clamping: $0.row.capturedAt) })),
                        \(PostgresArray(rows.map(\.row.correlationID))), \(PostgresArray(rows.map(\.row.replyTopic))),
                        \(PostgresArray(rows.map { Data($0.row.replyKey ?? []) })), \(PostgresArray(rows.map(\.row.requestID))),
                        \(PostgresArray(rows.map(\.digest))))
                AS s(i, e, c, r, t, k, q, d)
            ON CONFLICT (submission_id) DO NOTHING
            RETURNING submission_id, digest
            """)
        return Dictionary(try result.decode((UUID, Data).self)) { first, _ in first }
    }

    /// What is recorded of submissions seen before: the digest of the message first recorded
    /// under the id (nil for rows from before digests), and its answer, with where it goes,
    /// when it has one.
    struct Seen: Sendable {
        let digest: Data?
        let answer: (topic: String, key: [UInt8]?, value: [UInt8])?
    }

    /// The recorded digests and answers of these submissions.
    func seen(_ ids: [UUID], on connection: PostgresConnection) async throws -> [UUID: Seen] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            SELECT submission_id, digest, reply_topic, reply_key, result FROM \(unescaped: schema).submissions
            WHERE submission_id = ANY(\(PostgresArray(ids)))
            """)
        var out: [UUID: Seen] = [:]
        for (id, digest, topic, key, result) in try rows.decode((UUID, Data?, String, Data?, Data?).self) {
            out[id] = Seen(digest: digest, answer: result.map { (topic, key.map { [UInt8]($0) }, [UInt8]($0)) })
        }
        return out
    }

    /// Where a submission's answer goes.
    struct Destination: Sendable {
        /// The submission's id as it wrote it.
        let requestID: String
        let correlationID: String
        let topic: String
        let key: [UInt8]?
    }

    /// Where each submission's answer goes.
    func destinations(_ ids: [UUID], on connection: PostgresConnection) async throws -> [UUID: Destination] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            SELECT submission_id, COALESCE(request_id, submission_id::text), correlation_id, reply_topic, reply_key
            FROM \(unescaped: schema).submissions WHERE submission_id = ANY(\(PostgresArray(ids)))
            """)
        var out: [UUID: Destination] = [:]
        for (id, request, correlation, topic, key) in try rows.decode((UUID, String, String, String, Data?).self) {
            out[id] = Destination(requestID: request, correlationID: correlation, topic: topic, key: key.map { [UInt8]($0) })
        }
        return out
    }

    /// The id of a submission's final answer: derived, so every path that answers it (and
    /// every re-send) gives the same id.
    static func resultID(_ submission: UUID) -> String { MessageID.derived(from: submission.lowercasedText, "result") }

    /// Marks validated submissions as waiting for the log, in this order.
    func enqueue(_ ids: [UUID], on connection: PostgresConnection) async throws {
        guard !ids.isEmpty else { return }
        try await connection.execute(
            """
            UPDATE \(unescaped: schema).submissions s SET status = 'queued', queued_seq = q.n
            FROM (SELECT i, nextval('\(unescaped: schema).queued_seq') AS n
                  FROM unnest(\(PostgresArray(ids))) WITH ORDINALITY AS u(i, o) ORDER BY o) q
            WHERE s.submission_id = q.i AND s.status = 'validating'
            """)
    }

    /// Records final answers (so the same id asked again gets them again) and returns each as
    /// the output to send, in the given order.
    func answer(
        _ results: [(id: UUID, destination: Destination, result: SubmissionResult)],
        on connection: PostgresConnection
    ) async throws -> [StageOutput] {
        try await record(try results.map { ($0.id, $0.destination, try JSONCoding.encode($0.result)) }, on: connection)
    }

    /// Records final answers already encoded; returns each as the output to send, in order.
    func record(
        _ answers: [(id: UUID, destination: Destination, value: [UInt8])],
        on connection: PostgresConnection
    ) async throws -> [StageOutput] {
        guard !answers.isEmpty else { return [] }
        try await connection.execute(
            """
            UPDATE \(unescaped: schema).submissions s SET status = 'answered', result = a.result, queued_seq = NULL
            FROM unnest(\(PostgresArray(answers.map(\.id))), \(PostgresArray(answers.map { Data($0.value) }))) AS a(id, result)
            WHERE s.submission_id = a.id
            """)
        return answers.map { StageOutput(topic: $0.destination.topic, key: $0.destination.key, value: $0.value) }
    }

    /// Answers submissions `rejected` with their reasons (those with no row are skipped): the
    /// authority's FAIL, or `validation_timeout`. Returns the outputs by submission.
    func reject(
        _ rejections: [(id: UUID, reason: SubmissionResult.Reason)],
        on connection: PostgresConnection
    ) async throws -> [UUID: StageOutput] {
        let destinations = try await destinations(rejections.map(\.id), on: connection)
        let results = rejections.compactMap { id, reason in
            destinations[id].map { destination in
                (
                    id, destination,
                    SubmissionResult(
                        id: Self.resultID(id), producedAt: Timestamp.now(),
                        correlationID: destination.correlationID, requestID: destination.requestID,
                        reason: reason)
                )
            }
        }
        return Dictionary(zip(results.map(\.0), try await answer(results, on: connection))) { first, _ in first }
    }

    /// Deletes up to `limit` answered submissions older than `retention`; returns how many went.
    /// Only answers go: a submission still validating or queued is never touched. A submission
    /// sent again after its row went is validated again and, its hash being in the log,
    /// answered `duplicate` with its leaf index. No index on the age: the sweep's scan is
    /// cheaper than one more index entry on every answer, the log's hottest write.
    func sweepAnswered(olderThan retention: Duration, limit: Int, on pool: PostgresPool) async throws -> Int {
        try await pool.execute(
            """
            DELETE FROM \(unescaped: schema).submissions WHERE submission_id IN (
                SELECT submission_id FROM \(unescaped: schema).submissions
                WHERE status = 'answered' AND created_at < now() - make_interval(secs => \(Double(retention.components.seconds)))
                LIMIT \(limit))
            """)
    }
}
