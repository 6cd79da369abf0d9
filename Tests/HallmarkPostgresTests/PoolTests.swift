import Foundation
import HallmarkPostgres
import Testing

@Suite("PostgresPool", .timeLimit(.minutes(5)))
struct PoolTests {
    @Test func twoHundredConcurrentQueriesShareFourConnections() async throws {
        try await TestDatabase.withSchema(poolSize: 4) { pool, _ in
            let pids = try await withThrowingTaskGroup(of: (Int, Int32).self) { group in
                for i in 0..<200 {
                    group.addTask {
                        let row = try await pool.query("SELECT \(i), pg_backend_pid(), pg_sleep(0.001)").first!
                        return (try row.column(0, as: Int.self), try row.column(1, as: Int32.self))
                    }
                }
                var seen: [Int: Int32] = [:]
                for try await (i, pid) in group { seen[i] = pid }
                return seen
            }
            #expect(pids.count == 200)
            #expect(Set(pids.values).count <= 4)
            let stats = pool.statistics
            #expect(stats.open <= 4 && stats.waiting == 0)
        }
    }

    @Test func waitersAreServedInArrivalOrder() async throws {
        try await TestDatabase.withSchema(poolSize: 1) { pool, _ in
            let order = OrderLog()
            try await pool.withConnection { _ in
                // Queue three waiters one after another while the only connection is out.
                var tasks: [Task<Void, any Error>] = []
                for i in 1...3 {
                    tasks.append(
                        Task {
                            try await pool.withConnection { _ in await order.append(i) }
                        })
                    while pool.statistics.waiting < i { try await Task.sleep(for: .milliseconds(2)) }
                }
                return tasks
            }.forEachAsync { try await $0.value }
            #expect(await order.values == [1, 2, 3])
        }
    }

    @Test func aCancelledWaiterLeavesTheQueue() async throws {
        try await TestDatabase.withSchema(poolSize: 1) { pool, _ in
            try await pool.withConnection { _ in
                let waiter = Task { try await pool.query("SELECT 1") }
                while pool.statistics.waiting < 1 { try await Task.sleep(for: .milliseconds(2)) }
                waiter.cancel()
                await #expect(throws: CancellationError.self) { try await waiter.value }
                #expect(pool.statistics.waiting == 0)
            }
            #expect(try await pool.query("SELECT 1").count == 1)
        }
    }

    @Test func closeFailsWaitersAndLaterCalls() async throws {
        try await TestDatabase.withSchema(poolSize: 1) { pool, _ in
            let closable = try TestDatabase.makePool(poolSize: 1)
            try await closable.withConnection { _ in
                let waiter = Task { try await closable.query("SELECT 1") }
                while closable.statistics.waiting < 1 { try await Task.sleep(for: .milliseconds(2)) }
                closable.close()
                await #expect { try await waiter.value } throws: { ($0 as? PostgresError)?.code == .poolClosed }
            }
            #expect(closable.statistics.open == 0)
            await #expect { try await closable.query("SELECT 1") } throws: { ($0 as? PostgresError)?.code == .poolClosed }
            _ = pool
        }
    }
}

actor OrderLog {
    private(set) var values: [Int] = []
    func append(_ value: Int) { values.append(value) }
}

extension Array {
    func forEachAsync(_ body: (Element) async throws -> Void) async rethrows {
        for element in self { try await body(element) }
    }
}

@Suite("Cancellation", .timeLimit(.minutes(5)))
struct CancellationTests {
    @Test func cancellingTheTaskCancelsTheRunningStatement() async throws {
        try await TestDatabase.withSchema(poolSize: 2, cancelling: true) { pool, _ in
            let started = ContinuousClock.now
            let slow = Task { try await pool.query("SELECT pg_sleep(29)") }
            try await TestDatabase.waitUntil {
                try await pool.query(
                    """
                    SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(29)' AND state = 'active'
                    """
                ).first!.column(0, as: Int.self) == 1
            }
            slow.cancel()
            await #expect {
                try await slow.value
            } throws: { error in
                guard let error = error as? PostgresError else { return false }
                return error.isQueryCanceled && error.code == .queryFailed
            }
            #expect(ContinuousClock.now - started < .seconds(10))
            // The connection survives a cancelled statement.
            #expect(try await pool.query("SELECT 1").count == 1)
            #expect(pool.statistics.open <= 2)
        }
    }

    @Test func anAlreadyCancelledTaskDoesNotRunItsStatement() async throws {
        try await TestDatabase.withSchema(poolSize: 1, cancelling: true) { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).marks (n int)")
            let task = Task {
                try await pool.withConnection { conn in
                    withUnsafeCurrentTask { $0?.cancel() }
                    try await conn.execute("INSERT INTO \(unescaped: schema).marks VALUES (\(1))")
                }
            }
            await #expect { try await task.value } throws: { ($0 as? PostgresError)?.isQueryCanceled == true }
            #expect(try await pool.query("SELECT count(*) FROM \(unescaped: schema).marks").first!.column(0, as: Int.self) == 0)
        }
    }

    @Test func aTransactionCancelledMidwayRollsBackAndKeepsItsConnection() async throws {
        try await TestDatabase.withSchema(poolSize: 1, cancelling: true) { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).marks (n int)")
            let task = Task {
                try await pool.transaction { conn in
                    try await conn.execute("INSERT INTO \(unescaped: schema).marks VALUES (\(1))")
                    withUnsafeCurrentTask { $0?.cancel() }
                    try await conn.execute("INSERT INTO \(unescaped: schema).marks VALUES (\(2))")
                }
            }
            await #expect { try await task.value } throws: { ($0 as? PostgresError)?.isQueryCanceled == true }
            // ROLLBACK still ran, so the connection went back to the pool instead of being dropped.
            #expect(pool.statistics == .init(open: 1, idle: 1, waiting: 0))
            #expect(try await pool.query("SELECT count(*) FROM \(unescaped: schema).marks").first!.column(0, as: Int.self) == 0)
        }
    }

    @Test func byDefaultACancelledTaskStillRunsItsStatements() async throws {
        try await TestDatabase.withSchema(poolSize: 1) { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).marks (n int)")
            let task = Task {
                try await pool.withConnection { conn in
                    withUnsafeCurrentTask { $0?.cancel() }
                    return try await conn.execute("INSERT INTO \(unescaped: schema).marks VALUES (\(1))")
                }
            }
            #expect(try await task.value == 1)
            #expect(try await pool.query("SELECT count(*) FROM \(unescaped: schema).marks").first!.column(0, as: Int.self) == 1)
        }
    }
}
