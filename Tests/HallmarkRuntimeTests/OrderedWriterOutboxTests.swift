import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkPostgres
import HallmarkTestSupport
import Logging
import Testing

@testable import HallmarkRuntime

/// The writer's outbox against the real PostgreSQL and broker. Issue #53's step-down
/// (`unique_violation` of `hallmark_writer_outbox_pkey` during a run of duplicates): a batch
/// that takes no position (every item a duplicate) starts where the next batch starts, and
/// while its outputs wait for the broker its outbox row is still there when the next batch
/// records its own. Here the first batch's row is held (its delete waits on a lock the test
/// holds), so the second batch always finds it: the leader must write it all the same, and
/// never step down.
@Suite("Ordered writer outbox", .serialized, .timeLimit(.minutes(2)))
struct OrderedWriterOutboxTests {
    /// Items that each take no position, as duplicates do, and send one output each.
    struct DuplicatesLog: OrderedWriterLog {
        let schema: String
        let topic: String

        func waiting(limit: Int, on connection: PostgresConnection) async throws -> [Int64] {
            try await connection.query(
                "SELECT item FROM \(unescaped: schema).duplicates ORDER BY item LIMIT \(limit)"
            ).decode(Int64.self)
        }

        func append(
            _ items: [Int64], at position: Int64, on connection: PostgresConnection
        ) async throws
            -> OrderedWriterBatch
        {
            try await connection.execute(
                "DELETE FROM \(unescaped: schema).duplicates WHERE item = ANY(\(PostgresArray(items)))")
            return OrderedWriterBatch(
                appended: 0, outputs: items.map { StageOutput(topic: topic, key: nil, value: Array("item \($0)".utf8)) })
        }
    }

    @Test func batchesThatTakeNoPositionNeverCollideInTheOutbox() async throws {
        let h = try await StageHarness()
        let schema = "outbox_\(h.id)"
        try await StageDatabase(pool: h.pool, schema: schema).migrate(
            OrderedWriter<DuplicatesLog>.migrations(schema: schema), logger: h.logger)
        // An outbox row's delete waits for a lock the test holds, so each sent batch's row stays.
        let setup: [PostgresQuery] = [
            "CREATE TABLE \(unescaped: schema).duplicates (item bigint PRIMARY KEY)",
            "INSERT INTO \(unescaped: schema).duplicates VALUES (1), (2)",
            """
            CREATE FUNCTION \(unescaped: schema).hold_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_advisory_xact_lock(hashtext(TG_TABLE_SCHEMA)); RETURN OLD; END $$
            """,
            """
            CREATE TRIGGER hold BEFORE DELETE ON \(unescaped: schema).hallmark_writer_outbox
                FOR EACH ROW EXECUTE FUNCTION \(unescaped: schema).hold_outbox()
            """,
        ]
        for statement in setup { _ = try await h.pool.execute(statement) }
        let writer = OrderedWriter(
            configuration: .init(name: "duplicates", schema: schema, service: "test", maxBatch: 1),
            log: DuplicatesLog(schema: schema, topic: h.output), pool: h.pool, producer: h.producer, logger: h.logger)
        func count(_ table: String) async throws -> Int {
            try await h.pool.query("SELECT count(*) FROM \(unescaped: schema).\(unescaped: table)")[0].column(0, as: Int.self)
        }
        let run = try await h.pool.withConnection { holder in
            _ = try await holder.query("SELECT pg_advisory_lock(hashtext(\(schema)))")
            let run = Task { try await writer.run() }
            // Both batches at position 0 recorded, the first one's row still there.
            let both = try await eventually(timeout: .seconds(20)) { try await count("hallmark_writer_outbox") == 2 }
            #expect(both, "the second batch at the same position was not recorded beside the first")
            _ = try await holder.query("SELECT pg_advisory_unlock(hashtext(\(schema)))")
            return run
        }
        defer { run.cancel() }
        // Sent and forgotten, by the one leader it ever had.
        #expect(try await eventually(timeout: .seconds(20)) { try await count("hallmark_writer_outbox") == 0 })
        #expect(try await count("duplicates") == 0)
        let epoch = try await h.pool.query("SELECT epoch FROM \(unescaped: schema).hallmark_writer")[0].column(0, as: Int64.self)
        #expect(epoch == 1, "the leader stepped down")
        run.cancel()
        _ = await run.result
        _ = try await h.pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
        await h.close()
    }

    /// A log that keeps records: the record is the items' numbers, one byte each, and the
    /// outputs are made from it again.
    struct RecordLog: OrderedWriterLog {
        /// One key: one partition, so the order read is the order sent.
        static let key = Array("records".utf8)
        let topic: String

        func waiting(limit: Int, on connection: PostgresConnection) async throws -> [Int64] { [] }

        func append(
            _ items: [Int64], at position: Int64, on connection: PostgresConnection
        ) async throws
            -> OrderedWriterBatch
        {
            OrderedWriterBatch(appended: 0, outputs: [], outbox: items.map { UInt8($0) })
        }

        func outputs(again record: [UInt8], on connection: PostgresConnection) async throws -> [StageOutput] {
            record.map { StageOutput(topic: topic, key: Self.key, value: Array("again \($0)".utf8)) }
        }
    }

    /// What a predecessor committed and kept as a record (``OrderedWriterBatch/outbox``), and
    /// as outputs, is sent by the next leader before anything else, in order: the record's
    /// outputs made again by the log. Then both rows go.
    @Test func aNewLeaderSendsWhatItsPredecessorKeptAsARecord() async throws {
        let h = try await StageHarness()
        let schema = "outbox_\(h.id)"
        try await StageDatabase(pool: h.pool, schema: schema).migrate(
            OrderedWriter<RecordLog>.migrations(schema: schema), logger: h.logger)
        let kept = OutboxCodec.encode([StageOutput(topic: h.output, key: RecordLog.key, value: Array("kept".utf8))])
        _ = try await h.pool.execute(
            """
            INSERT INTO \(unescaped: schema).hallmark_writer_outbox (name, position, outputs, record)
            VALUES ('records', 0, NULL, \(Data([3, 5]))), ('records', 1, \(kept), NULL)
            """)
        let writer = OrderedWriter(
            configuration: .init(name: "records", schema: schema, service: "test"),
            log: RecordLog(topic: h.output), pool: h.pool, producer: h.producer, logger: h.logger)
        let run = Task { try await writer.run() }
        defer { run.cancel() }
        let sent = try await h.read(h.output, count: 3).map { String(decoding: $0.value, as: UTF8.self) }
        #expect(sent == ["again 3", "again 5", "kept"])
        let left = try await eventually(timeout: .seconds(20)) {
            try await h.pool.query("SELECT count(*) FROM \(unescaped: schema).hallmark_writer_outbox")[0].column(
                0, as: Int.self) == 0
        }
        #expect(left, "the outbox rows were not forgotten")
        run.cancel()
        _ = await run.result
        _ = try await h.pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
        await h.close()
    }
}
