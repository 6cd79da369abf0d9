import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres

/// The queue the log writer reads: submissions `queued`, in `queued_seq` order.
extension SubmissionLedger {
    /// The queued submissions, oldest first, up to `limit` (the log writer's next batch).
    func queued(limit: Int, on connection: PostgresConnection) async throws -> [SubmissionRecord] {
        try Self.records(
            try await connection.query(
                """
                SELECT s.submission_id, s.request_id, s.entries, s.captured_at, s.correlation_id, s.reply_topic, s.reply_key,
                       s.gps_hash, s.owner_hash, s.signed_fields
                FROM \(unescaped: schema).submissions s WHERE s.status = 'queued'
                ORDER BY s.queued_seq LIMIT \(limit)
                """))
    }

    /// The records in `rows`: `submission_id`, `request_id`, `entries`, `captured_at`,
    /// `correlation_id`, `reply_topic`, `reply_key`, `gps_hash`, `owner_hash`, `signed_fields`.
    static func records(_ rows: PostgresRows) throws -> [SubmissionRecord] {
        try rows.decode((UUID, String?, Data, Int64, String, String, Data?, Data?, Data?, String?).self).map {
            id, request, entries, captured, correlation, topic, key, gps, owner, signed in
            SubmissionRecord(
                id: id, requestID: request.flatMap(MessageID.init),
                entries: try JSONCoding.decode([Submission.ImageHash].self, from: try JSONReader.parse([UInt8](entries))),
                capturedAt: UInt64(captured), correlationID: correlation, replyTopic: topic, replyKey: key.map { [UInt8]($0) },
                attribution: Attribution(gpsHash: gps, ownerHash: owner), signedFields: signed)
        }
    }

    /// How many submissions are queued, counting no further than `limit`.
    func queuedCount(limit: Int, on connection: PostgresConnection) async throws -> Int {
        try await connection.query(
            """
            SELECT count(*) FROM (
                SELECT 1 FROM \(unescaped: schema).submissions WHERE status = 'queued' LIMIT \(limit)) q
            """)[0].column(0, as: Int.self)
    }
}
