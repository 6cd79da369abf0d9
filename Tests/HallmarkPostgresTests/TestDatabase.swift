import Foundation
import HallmarkPostgres
import Logging

/// Where the tests find their server, and why they fail when there is none.
enum TestDatabase {
    struct MissingEnvironment: Error, CustomStringConvertible {
        let description = """
            HALLMARK_POSTGRES_URL is not set. These tests need a real PostgreSQL server: run \
            deploy/local/setup && deploy/local/up, then export \
            HALLMARK_POSTGRES_URL=postgresql://hallmark@127.0.0.1:55432/hallmark \
            (and HALLMARK_PG_DATA=<repo>/.hallmark/pg/data for the restart tests).
            """
    }

    static var url: String {
        get throws {
            guard let url = ProcessInfo.processInfo.environment["HALLMARK_POSTGRES_URL"], !url.isEmpty else {
                throw MissingEnvironment()
            }
            return url
        }
    }

    static var logger: Logger {
        var logger = Logger(label: "hallmark.postgres.tests")
        logger.logLevel = .warning
        return logger
    }

    static func makePool(poolSize: Int = 4) throws -> PostgresPool {
        PostgresPool(configuration: try PostgresConfiguration(url: try url, poolSize: poolSize), logger: logger)
    }

    /// A fresh, valid schema name, so tests running in parallel never share tables.
    static func randomSchema() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        return "t_" + String((0..<16).map { _ in alphabet.randomElement()! })
    }

    /// Runs `body` with a pool and an empty schema of its own, dropped afterwards. Holds the
    /// server gate in shared mode, so a restart test never pulls the server from under it.
    @discardableResult
    static func withSchema<T>(
        poolSize: Int = 4,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresPool, String) async throws -> T
    ) async throws -> T {
        let pool = try makePool(poolSize: poolSize)
        defer { pool.close() }
        let schema = randomSchema()
        return try await ServerGate.withShared {
            try await pool.execute("CREATE SCHEMA \(unescaped: schema)")
            do {
                let value = try await body(pool, schema)
                try await pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
                return value
            } catch {
                _ = try? await pool.execute("DROP SCHEMA \(unescaped: schema) CASCADE")
                throw error
            }
        }
    }
}

/// A readers–writer gate over the shared server: ordinary tests enter shared, the restart tests
/// exclusive (and waiting writers go first, so they are not starved).
actor ServerGate {
    static let shared = ServerGate()

    private var readers = 0
    private var writer = false
    private var waitingReaders: [CheckedContinuation<Void, Never>] = []
    private var waitingWriters: [CheckedContinuation<Void, Never>] = []

    static func withShared<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async throws -> T {
        await shared.acquireShared()
        do {
            let value = try await body()
            await shared.releaseShared()
            return value
        } catch {
            await shared.releaseShared()
            throw error
        }
    }

    static func withExclusive<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async throws -> T {
        await shared.acquireExclusive()
        do {
            let value = try await body()
            await shared.releaseExclusive()
            return value
        } catch {
            await shared.releaseExclusive()
            throw error
        }
    }

    fileprivate func acquireShared() async {
        if writer || !waitingWriters.isEmpty {
            await withCheckedContinuation { waitingReaders.append($0) }  // granter counted us
        } else {
            readers += 1
        }
    }

    fileprivate func releaseShared() {
        readers -= 1
        if readers == 0, !waitingWriters.isEmpty {
            writer = true
            waitingWriters.removeFirst().resume()
        }
    }

    fileprivate func acquireExclusive() async {
        if writer || readers > 0 {
            await withCheckedContinuation { waitingWriters.append($0) }  // granter set `writer`
        } else {
            writer = true
        }
    }

    fileprivate func releaseExclusive() {
        if !waitingWriters.isEmpty {
            waitingWriters.removeFirst().resume()
            return
        }
        writer = false
        readers += waitingReaders.count
        let readers = waitingReaders
        waitingReaders = []
        readers.forEach { $0.resume() }
    }
}
