import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import Logging
import Synchronization
import Testing

/// A processor that writes a mark per message and asks to be told once it is committed; its
/// first attempt at each batch fails after asking, so that attempt rolls back.
struct MarkingProcessor: TransactionalStageProcessor {
    typealias Prepared = StageMessage
    let schema: String
    let pool: PostgresPool
    let log: HookLog

    struct FirstAttemptFails: Error {}

    var unitOfWork: StageUnitOfWork { .perBatch }

    func commit(_ batch: [StageMessage], in transaction: StageTransaction) async throws -> [StageVerdict] {
        let ids = batch.map { $0.header.id.uuid }
        for id in ids {
            try await transaction.connection.execute("INSERT INTO \(unescaped: schema).marks (id) VALUES (\(id))")
        }
        let attempt = transaction.attempt
        transaction.afterCommit { [pool, schema, log] in
            log.ran(attempt: attempt)
            // What a woken reader sees from its own connection: every mark of the batch.
            Task {
                let counts: [Int64] = try await pool.query(
                    "SELECT count(*)::bigint FROM \(unescaped: schema).marks WHERE id = ANY(\(PostgresArray(ids)))"
                ).decode(Int64.self)
                log.saw(Int(counts.first ?? 0), of: ids.count)
            }
        }
        if attempt == 0 { throw FirstAttemptFails() }
        return batch.map { _ in .outputs([]) }
    }
}

/// What the hooks did: the attempts they ran for, and what each saw.
final class HookLog: Sendable {
    private let state = Mutex<(attempts: [Int], seen: [(Int, Int)])>(([], []))
    func ran(attempt: Int) { state.withLock { $0.attempts.append(attempt) } }
    func saw(_ n: Int, of expected: Int) { state.withLock { $0.seen.append((n, expected)) } }
    var attempts: [Int] { state.withLock { $0.attempts } }
    var seen: [(Int, Int)] { state.withLock { $0.seen } }
}

/// Against the real broker and PostgreSQL: work registered with `afterCommit` runs once the
/// unit's transaction has committed, never for an attempt that rolled back, and sees what the
/// transaction wrote (the log writer is woken this way).
@Suite("Stage commit hooks against the real broker", .serialized, .timeLimit(.minutes(3)))
struct StageCommitHooksTests {
    @Test func hooksRunAfterTheCommitAndNeverForARolledBackAttempt() async throws {
        let h = try await StageHarness()
        defer { Task { await h.close() } }
        let database = StageDatabase(pool: h.pool, schema: h.schema)
        try await database.migrate(
            [.init(version: 1, name: "marks", sql: "CREATE TABLE \(h.schema).marks (id uuid PRIMARY KEY)")],
            logger: h.logger)
        var config = StageConfiguration(
            service: "hooks-test", inputs: [StageInput(topic: h.input, schemas: [ProbeRequest.schemaName])],
            groupID: h.group, dispatch: .partitionBatches, rejectedTopic: h.rejected, maxBatch: 16, batchWorkers: 2,
            retry: RetryPolicy(initialDelay: .milliseconds(1), maxDelay: .milliseconds(5)))
        config.instance = "hooks-\(h.id)"
        let log = HookLog()
        let stage = Stage(
            configuration: config, kafka: h.kafka, producer: h.producer, database: database,
            processor: MarkingProcessor(schema: h.schema, pool: h.pool, log: log), logger: h.logger)
        let running = Task { try await stage.run() }
        let ids = try await h.produceRequests(40, keys: 8)
        try await h.wait("every mark committed and every hook's reader done", timeout: .seconds(90)) {
            let marks: [Int64] = try await h.pool.query("SELECT count(*)::bigint FROM \(unescaped: h.schema).marks")
                .decode(Int64.self)
            return marks.first == Int64(ids.count) && log.seen.reduce(0) { $0 + $1.1 } == ids.count
        }
        running.cancel()
        _ = await running.result
        #expect(!log.attempts.isEmpty)
        #expect(!log.attempts.contains(0), "a hook of a rolled-back attempt ran")
        for (seen, expected) in log.seen { #expect(seen == expected, "a hook ran before its rows were visible") }
        try await h.pool.execute("DROP SCHEMA \(unescaped: h.schema) CASCADE")
    }
}
