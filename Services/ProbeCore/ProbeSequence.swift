import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// The ordered writer's reference log (`hallmark probe-writer`): items inserted into
/// `writer_items` by anyone are appended to `writer_log` at consecutive positions, one batch at a
/// time, and each batch ends in a "checkpoint" (a probe result whose `n` is the log's size) on
/// the output topic. Tests kill leaders under load and check the log stays gap- and duplicate-free.
package struct ProbeSequence: OrderedWriterLog {
    package typealias Item = Int64

    let schema: String
    let output: String
    let instance: String

    package init(schema: String, output: String, instance: String) {
        self.schema = schema
        self.output = output
        self.instance = instance
    }

    /// The reference log's tables.
    package static func migrations(schema: String) -> [PostgresMigrations.Migration] {
        [
            .init(
                version: 1, name: "writer_log",
                sql: """
                    CREATE TABLE \(schema).writer_items (
                        item_id bigint PRIMARY KEY,
                        enqueued_at timestamptz NOT NULL DEFAULT clock_timestamp()
                    );
                    CREATE INDEX writer_items_order ON \(schema).writer_items (enqueued_at, item_id);
                    CREATE TABLE \(schema).writer_log (
                        position bigint PRIMARY KEY,
                        item_id bigint NOT NULL UNIQUE,
                        written_by text NOT NULL
                    );
                    """)
        ] + OrderedWriter<ProbeSequence>.migrations(schema: schema)
    }

    package func waiting(limit: Int, on connection: PostgresConnection) async throws -> [Int64] {
        try await connection.query(
            """
            SELECT item_id FROM \(unescaped: schema).writer_items ORDER BY enqueued_at, item_id LIMIT \(limit)
            """
        ).map { try $0.column(0, as: Int64.self) }
    }

    package func append(
        _ items: [Int64], at position: Int64, on connection: PostgresConnection
    ) async throws -> OrderedWriterBatch {
        try await connection.execute(
            """
            INSERT INTO \(unescaped: schema).writer_log (position, item_id, written_by)
            SELECT \(position) + i.n - 1, i.item_id, \(instance)
            FROM unnest(\(PostgresArray(items))) WITH ORDINALITY AS i(item_id, n)
            """)
        try await connection.execute(
            """
            DELETE FROM \(unescaped: schema).writer_items WHERE item_id = ANY(\(PostgresArray(items)))
            """)
        let size = position + Int64(items.count)
        let checkpoint = Message(
            ProbeResult(n: Int(size), instance: instance), id: MessageID.derived(from: "\(schema)", "checkpoint-\(size)"),
            correlationID: "checkpoint-\(position)")
        return OrderedWriterBatch(appended: items.count, outputs: [try .json(topic: output, key: schema, checkpoint)])
    }
}
