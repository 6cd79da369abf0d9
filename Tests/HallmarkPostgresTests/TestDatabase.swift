import Foundation
import HallmarkPostgres
import Logging
import Testing

/// Where the tests find their server, and why they fail when there is none.
enum TestDatabase {
    struct MissingEnvironment: Error, CustomStringConvertible {
        let description = """
            HALLMARK_POSTGRES_URL is not set. These tests need a real PostgreSQL server: run \
            deploy/local/setup && deploy/local/up, then `source deploy/local/env.sh`, which exports \
            HALLMARK_POSTGRES_URL (the role hallmark_test, which may create schemas) and each \
            service's HALLMARK_<SERVICE>_POSTGRES_URL (and export HALLMARK_PG_DATA for the restart tests).
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

    static func makePool(poolSize: Int = 4, cancelling: Bool = false) throws -> PostgresPool {
        let configuration = try PostgresConfiguration(
            url: try url, poolSize: poolSize, cancelsStatementsOnTaskCancellation: cancelling)
        return PostgresPool(configuration: configuration, logger: logger)
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
        cancelling: Bool = false,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresPool, String) async throws -> T
    ) async throws -> T {
        let pool = try makePool(poolSize: poolSize, cancelling: cancelling)
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

    /// Polls `condition` every 10 ms for up to 5 s.
    static func waitUntil(
        isolation: isolated (any Actor)? = #isolation,
        _ condition: () async throws -> Bool
    ) async throws {
        for _ in 0..<500 {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("condition not met within 5 s")
    }
}
