import HallmarkTestSupport
import Foundation
import HallmarkPostgres
import Testing

/// Restarts the shared server, so these run one at a time, and deploy/local/test runs this suite
/// alone, after the others (``PostgresServerControl/restart()`` refuses while they run).
@Suite(
    "Reconnect after a server restart",
    .serialized,
    .enabled(
        if: PostgresServerControl.dataDirectory != nil,
        "HALLMARK_PG_DATA is not set: export HALLMARK_PG_DATA=<repo>/.hallmark/pg/data to run the restart tests"),
    .timeLimit(.minutes(5)))
struct ReconnectTests {
    private func backendPIDs(_ pool: PostgresPool, count: Int) async throws -> Set<Int32> {
        try await withThrowingTaskGroup(of: Int32.self) { group in
            for _ in 0..<count {
                group.addTask {
                    try await pool.query("SELECT pg_backend_pid(), pg_sleep(0.05)").first!.column(0, as: Int32.self)
                }
            }
            return try await group.reduce(into: []) { $0.insert($1) }
        }
    }

    @Test func idleConnectionsAreReplacedAfterARestart() async throws {
        try await ServerGate.withExclusive {
            let pool = try TestDatabase.makePool(poolSize: 2)
            defer { pool.close() }
            let before = try await backendPIDs(pool, count: 4)
            #expect(pool.statistics.idle == 2)
            try await PostgresServerControl.restart()
            // The pool may notice the dead connection only when a query fails: allow one
            // connectionLost, never anything else.
            do {
                try await pool.query("SELECT 1")
            } catch let error as PostgresError {
                #expect(error.code == .connectionLost)
            }
            let after = try await backendPIDs(pool, count: 4)
            #expect(after.isDisjoint(with: before))
            #expect(pool.statistics.open <= 2)
        }
    }

    @Test func anInFlightQueryFailsWithConnectionLostAndThePoolRecovers() async throws {
        try await ServerGate.withExclusive {
            let pool = try TestDatabase.makePool(poolSize: 2)
            defer { pool.close() }
            let slow = Task { try await pool.query("SELECT pg_sleep(30)") }
            try await TestDatabase.waitUntil {
                try await pool.query(
                    "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(30)'"
                ).first!.column(0, as: Int.self) == 1
            }
            try await PostgresServerControl.restart()
            await #expect {
                try await slow.value
            } throws: { error in
                guard let error = error as? PostgresError else { return false }
                return error.code == .connectionLost && error.isConnectionError
            }
            let recovered = try await pool.withRetry(attempts: 5) { try await pool.query("SELECT 42") }
            #expect(try recovered.first?.column(0, as: Int.self) == 42)
        }
    }

    @Test func withRetryRidesOutARestart() async throws {
        try await ServerGate.withExclusive {
            let pool = try TestDatabase.makePool(poolSize: 4)
            defer { pool.close() }
            _ = try await backendPIDs(pool, count: 8)
            try await PostgresServerControl.restart()
            let values = try await withThrowingTaskGroup(of: Int.self) { group in
                for i in 0..<20 {
                    group.addTask {
                        try await pool.withRetry(attempts: 5, initialBackoff: .milliseconds(50)) {
                            try await pool.query("SELECT \(i)").first!.column(0, as: Int.self)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(values.sorted() == Array(0..<20))
        }
    }

    @Test func queriesRunningThroughARestartAllSucceedWithRetry() async throws {
        try await ServerGate.withExclusive {
            let pool = try TestDatabase.makePool(poolSize: 4)
            defer { pool.close() }
            let total = try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        var sum = 0
                        for i in 0..<40 {
                            sum += try await pool.withRetry(attempts: 8, initialBackoff: .milliseconds(25)) {
                                try await pool.query("SELECT \(worker * 1000 + i), pg_sleep(0.005)")
                                    .first!.column(0, as: Int.self)
                            }
                        }
                        return sum
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .milliseconds(100))
                    try await PostgresServerControl.restart()
                    return 0
                }
                return try await group.reduce(0, +)
            }
            let expected = (0..<8).map { w in (0..<40).map { w * 1000 + $0 }.reduce(0, +) }.reduce(0, +)
            #expect(total == expected)
            let stats = pool.statistics
            #expect(stats.open <= 4 && stats.waiting == 0)
            #expect(try await backendPIDs(pool, count: 8).count <= 4)
        }
    }
}
