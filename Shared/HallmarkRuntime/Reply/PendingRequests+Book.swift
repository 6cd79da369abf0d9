import Foundation
import HallmarkPostgres

extension PendingRequests: RequestBook {
    public func claimDue(limit: Int, on connection: PostgresConnection) async throws -> DueRequests {
        let rows = try await connection.query(
            """
            SELECT correlation_id, request_topic, request_key, request, context, attempts, created_at, expired,
                   deadline <= now()
            FROM \(unescaped: schema).hallmark_pending
            WHERE next_send_at <= now() OR deadline <= now()
            ORDER BY next_send_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
            """)
        var due = DueRequests(), resendIDs: [UUID] = []
        for row in rows {
            let (id, topic, key, request, context, attempts, created, wasExpired, late) =
                try row.decode((UUID, String, Data?, Data, Data, Int32, Date, Bool, Bool).self)
            if wasExpired || late {
                due.expired.append(
                    PendingRequest(correlationID: id, context: [UInt8](context), attempts: Int(attempts), createdAt: created))
            } else {
                due.resend.append(StageOutput(topic: topic, key: key.map { [UInt8]($0) }, value: [UInt8](request)))
                resendIDs.append(id)
            }
        }
        if !resendIDs.isEmpty {
            try await connection.execute(
                """
                UPDATE \(unescaped: schema).hallmark_pending
                SET attempts = attempts + 1,
                    next_send_at = \(Self.nextSending(afterAttempts: "attempts", resendAfter: resendAfter))
                WHERE correlation_id = ANY(\(PostgresArray(resendIDs)))
                """)
        }
        if !due.expired.isEmpty {
            // A late reply no longer joins these; their rows go once their outcomes are sent.
            try await connection.execute(
                """
                UPDATE \(unescaped: schema).hallmark_pending SET expired = true,
                    next_send_at = now() + \(interval: resendAfter)
                WHERE correlation_id = ANY(\(PostgresArray(due.expired.map(\.correlationID))))
                """)
        }
        return due
    }

    public func forget(_ expired: [PendingRequest], on connection: PostgresConnection) async throws {
        guard !expired.isEmpty else { return }
        try await connection.execute(
            """
            DELETE FROM \(unescaped: schema).hallmark_pending
            WHERE correlation_id = ANY(\(PostgresArray(expired.map(\.correlationID)))) AND expired
            """)
    }
}
