import Foundation
import HallmarkKafka
import HallmarkPostgres

/// SQL over `<schema>.hallmark_inbox` (see ``StageDatabase``): record committed messages with
/// their outputs, read back what a redelivered message produced, forget outputs once sent.
struct Inbox: Sendable {
    let schema: String

    /// One committed message.
    struct Entry {
        let id: UUID
        let topic: String
        let outputs: [StageOutput]
    }

    /// Records the entries in the caller's transaction; returns the ids that were new (an id
    /// already there belongs to a message committed before: a redelivery).
    func record(_ entries: [Entry], on connection: PostgresConnection) async throws -> Set<UUID> {
        let rows = try await connection.query("""
            INSERT INTO \(unescaped: schema).hallmark_inbox (message_id, source_topic, outputs)
            SELECT * FROM unnest(\(PostgresArray(entries.map(\.id))), \(PostgresArray(entries.map(\.topic))),
                                 \(PostgresArray(entries.map { OutboxCodec.encode($0.outputs) })))
            ON CONFLICT (message_id) DO NOTHING
            RETURNING message_id
            """)
        return Set(try rows.map { try $0.column(0, as: UUID.self) })
    }

    /// The outputs recorded for `ids` and not yet acknowledged (absent: already sent).
    func unsent(_ ids: [UUID], pool: PostgresPool) async throws -> [UUID: [StageOutput]] {
        let rows = try await pool.query("""
            SELECT message_id, outputs FROM \(unescaped: schema).hallmark_inbox
            WHERE message_id = ANY(\(PostgresArray(ids))) AND outputs IS NOT NULL
            """)
        var out: [UUID: [StageOutput]] = [:]
        for (id, blob) in try rows.decode((UUID, Data).self) {
            // A record this build cannot read was written by a newer one: nothing to re-send.
            if let outputs = OutboxCodec.decode(blob) { out[id] = outputs }
        }
        return out
    }

    /// Forgets the outputs of messages whose outputs the broker acknowledged.
    func clear(_ ids: [UUID], pool: PostgresPool) async throws {
        try await pool.execute("""
            UPDATE \(unescaped: schema).hallmark_inbox SET outputs = NULL
            WHERE message_id = ANY(\(PostgresArray(ids))) AND outputs IS NOT NULL
            """)
    }
}
