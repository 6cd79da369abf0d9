import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

extension SubmissionLedger {
    /// The submissions still `validating` among these (those waiting for a parent,
    /// ``ParentWaits``), as recorded.
    func validating(_ ids: [UUID], on connection: PostgresConnection) async throws -> [UUID: SubmissionRecord] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            SELECT s.submission_id, s.request_id, s.entries, s.captured_at, s.correlation_id, s.reply_topic, s.reply_key,
                   s.gps_hash, s.owner_hash, s.signed_fields
            FROM \(unescaped: schema).submissions s
            WHERE s.submission_id = ANY(\(PostgresArray(ids))) AND s.status = 'validating'
            """)
        return Dictionary(try Self.records(rows).map { ($0.id, $0) }) { first, _ in first }
    }

    /// Submissions whose parent never came within the window (``ParentWaits``): answered
    /// `invalid_provenance` and forgotten, not recorded (DESIGN §2: a refusal that depends on
    /// state that can still change is not final), so the same bytes sent again are judged
    /// again. Each answer's id names its wait (`due`): a refusal sent again after a crash has the
    /// same id, and the answer of a later judgement has another, so no consumer drops it as a
    /// copy. Returns the answers to send, in order.
    func withdraw(_ waits: [(id: UUID, due: Int64)], on connection: PostgresConnection) async throws -> [StageOutput] {
        guard !waits.isEmpty else { return [] }
        let destinations = try await destinations(waits.map(\.id), on: connection)
        let outputs = try waits.compactMap { id, due -> StageOutput? in
            guard let to = destinations[id] else { return nil }
            let answer = Message(
                SubmissionResult(reason: .invalidProvenance),
                header: .answer(
                    SubmissionResult.schemaName, id: MessageID.derived(from: id.lowercasedText, "provenance-\(due)"),
                    to: to.requestID, correlationID: to.correlationID))
            return StageOutput(topic: to.topic, key: to.key, value: try JSONCoding.encode(answer))
        }
        try await connection.execute(
            """
            DELETE FROM \(unescaped: schema).submissions
            WHERE submission_id = ANY(\(PostgresArray(waits.map(\.id)))) AND status = 'validating'
            """)
        return outputs
    }
}
