import Foundation
import HallmarkCore
import HallmarkPostgres
import HallmarkTestSupport
import Synchronization
import Testing

@testable import HallmarkRuntime

/// How an idle leader learns that items wait. Its own looks grow sparse while nothing comes, so
/// an item added by another replica must reach it by `NOTIFY`: here the leader's looks are 30 s
/// apart and the item must be appended long before the next one.
@Suite("Ordered writer wake-ups", .serialized, .timeLimit(.minutes(2)))
struct OrderedWriterWakeupTests {
    /// Items in a table of the test's; every look (``waitingCount(limit:on:)``) is counted.
    struct CountedLog: OrderedWriterLog {
        let schema: String
        let looks: Counter
        let batches = Sizes()

        func waiting(limit: Int, on connection: PostgresConnection) async throws -> [Int64] {
            try await connection.query(
                "SELECT item FROM \(unescaped: schema).items ORDER BY item LIMIT \(limit)"
            ).decode(Int64.self)
        }

        func waitingCount(limit: Int, on connection: PostgresConnection) async throws -> Int {
            looks.add()
            return try await waiting(limit: limit, on: connection).count
        }

        func append(
            _ items: [Int64], at position: Int64, on connection: PostgresConnection
        ) async throws
            -> OrderedWriterBatch
        {
            try await connection.execute(
                "DELETE FROM \(unescaped: schema).items WHERE item = ANY(\(PostgresArray(items)))")
            _ = try await connection.execute(
                "INSERT INTO \(unescaped: schema).appended SELECT unnest(\(PostgresArray(items)))")
            batches.record(items.count)
            return OrderedWriterBatch(appended: items.count, outputs: [])
        }
    }

    final class Sizes: Sendable {
        private let sizes = Mutex<[Int]>([])
        func record(_ n: Int) { sizes.withLock { $0.append(n) } }
        var all: [Int] { sizes.withLock { $0 } }
    }

    final class Counter: Sendable {
        let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    /// The writer's tables and the log's items and appended items, in `schema`.
    static func makeTables(_ h: StageHarness, _ schema: String) async throws {
        try await StageDatabase(pool: h.pool, schema: schema).migrate(
            OrderedWriter<CountedLog>.migrations(schema: schema), logger: h.logger)
        for statement: PostgresQuery in [
            "CREATE TABLE \(unescaped: schema).items (item bigint PRIMARY KEY)",
            "CREATE TABLE \(unescaped: schema).appended (item bigint PRIMARY KEY)",
        ] { _ = try await h.pool.execute(statement) }
    }

    @Test func idleLooksDoubleUpToTheLongest() {
        let configuration = OrderedWriter<CountedLog>.Configuration(
            name: "n", schema: "s", service: "test", idlePoll: .milliseconds(20), longestIdlePoll: .milliseconds(500))
        let waits = (1...8).map { configuration.idleWait(afterQuietLooks: $0) }
        #expect(waits == [20, 40, 80, 160, 320, 500, 500, 500].map { .milliseconds($0) })
        #expect(
            OrderedWriter<CountedLog>.channel(schema: "aggregator", name: "transparency-log")
                == "hallmark_writer_aggregator_transparency_log")
        #expect(OrderedWriter<CountedLog>.channel(schema: "s", name: String(repeating: "x", count: 80)).utf8.count == 63)
    }

    /// Pace: items that come sooner after the last batch than the pace wait for it and go in
    /// one batch (one transaction, one signed checkpoint for the log), while the first item
    /// after a quiet spell goes at once. (With no pace the second item went alone.)
    @Test func itemsWithinThePaceGoAsOneBatch() async throws {
        let h = try await StageHarness()
        let schema = "pace_\(h.id)"
        try await Self.makeTables(h, schema)
        let log = CountedLog(schema: schema, looks: Counter())
        let writer = OrderedWriter(
            configuration: .init(name: "pace", schema: schema, service: "test", pace: .seconds(3)), log: log,
            pool: h.pool, producer: h.producer, logger: h.logger)
        let leading = Task { try await writer.run() }
        defer { leading.cancel() }
        func appended(_ n: Int, within timeout: Duration) async throws -> Bool {
            try await eventually(timeout: timeout) {
                try await h.pool.query("SELECT count(*) FROM \(unescaped: schema).appended")[0].column(0, as: Int.self) == n
            }
        }
        func add(_ items: ClosedRange<Int64>) async throws {
            for item in items { _ = try await h.pool.execute("INSERT INTO \(unescaped: schema).items VALUES (\(item))") }
            writer.wake()
        }
        try await add(1...1)
        #expect(try await appended(1, within: .seconds(20)), "the first item was not appended")
        try await add(2...2)
        let heldForThePace = !(try await appended(2, within: .milliseconds(500)))
        #expect(heldForThePace, "an item sooner than the pace went alone")
        try await add(3...5)
        #expect(try await appended(5, within: .seconds(20)), "the paced batch was not appended")
        #expect(log.batches.all == [1, 4])
        leading.cancel()
        _ = await leading.result
        _ = try await h.pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
        await h.close()
    }

    @Test func aStandbysWakeReachesTheIdleLeaderAtOnce() async throws {
        let h = try await StageHarness()
        let schema = "wakeup_\(h.id)"
        try await Self.makeTables(h, schema)
        // Looks 30 s apart: only a notification brings the item in within the test's wait.
        let configuration = OrderedWriter<CountedLog>.Configuration(
            name: "wakeup", schema: schema, service: "test", idlePoll: .seconds(30), longestIdlePoll: .seconds(30))
        let looks = Counter()
        let leader = OrderedWriter(
            configuration: configuration, log: CountedLog(schema: schema, looks: looks), pool: h.pool,
            producer: h.producer, logger: h.logger)
        let leading = Task { try await leader.run() }
        defer { leading.cancel() }
        // Leading, listening, and parked after its two looks: the first, and the one that the
        // start of listening asks for (in either order).
        let parked = try await eventually(timeout: .seconds(20)) {
            let listens = try await h.pool.query(
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE query = \("LISTEN \(leader.channel)") AND state = 'idle'
                """)[0].column(0, as: Int.self)
            return listens == 1 && leader.leading.load(ordering: .relaxed) && looks.count == 2
                && leader.wakeups.hasWaiter
        }
        #expect(parked, "the leader never settled into its idle wait")

        // A standby (this writer's lock is held by the leader, so it never leads) adds an item.
        let standby = OrderedWriter(
            configuration: configuration, log: CountedLog(schema: schema, looks: Counter()), pool: h.pool,
            producer: h.producer, logger: h.logger)
        let standing = Task { try await standby.run() }
        defer { standing.cancel() }
        _ = try await h.pool.execute("INSERT INTO \(unescaped: schema).items VALUES (7)")
        standby.wake()
        let appended = try await eventually(timeout: .seconds(10)) {
            try await h.pool.query("SELECT count(*) FROM \(unescaped: schema).appended")[0].column(0, as: Int.self) == 1
        }
        #expect(appended, "the standby's notification did not wake the leader")
        let standbyLeads = standby.leading.load(ordering: .relaxed)
        #expect(!standbyLeads)

        leading.cancel()
        standing.cancel()
        _ = await (leading.result, standing.result)
        _ = try await h.pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
        await h.close()
    }
}
