import Foundation
import HallmarkPostgres
import Testing

@Suite("Server errors and redaction", .timeLimit(.minutes(2)))
struct ErrorTests {
    @Test func uniqueViolationIsRecognisedAndRedacted() async throws {
        try await TestDatabase.withSchema { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).users (email text CONSTRAINT users_email_key UNIQUE)")
            let secret = "s3cr3t-address@example.com"
            try await pool.execute("INSERT INTO \(unescaped: schema).users VALUES (\(secret))")
            await #expect {
                try await pool.execute("INSERT INTO \(unescaped: schema).users VALUES (\(secret))")
            } throws: { error in
                guard let error = error as? PostgresError else { return false }
                return error.code == .queryFailed && error.isUniqueViolation && error.sqlState == "23505"
                    && error.constraint == "users_email_key" && !error.description.contains(secret)
                    && !error.isConnectionError
            }
            // The connection that failed is still good for the next statement.
            #expect(try await pool.query("SELECT count(*) FROM \(unescaped: schema).users").first?.column(0, as: Int.self) == 1)
        }
    }

    @Test func syntaxErrorsCarryTheirSQLState() async throws {
        try await TestDatabase.withSchema { pool, _ in
            await #expect {
                try await pool.query("SELEC 1")
            } throws: { ($0 as? PostgresError)?.sqlState == "42601" }
        }
    }

    @Test func sqlInjectionStaysData() async throws {
        try await TestDatabase.withSchema { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).students (name text)")
            let evil = "Robert'); DROP TABLE \(schema).students; --"
            try await pool.execute("INSERT INTO \(unescaped: schema).students VALUES (\(evil))")
            let found = try await pool.query("SELECT name FROM \(unescaped: schema).students WHERE name = \(evil)")
            #expect(try found.decode(String.self) == [evil])
            let probe = "' OR '1'='1"
            #expect(try await pool.query("SELECT name FROM \(unescaped: schema).students WHERE name = \(probe)").isEmpty)
        }
    }

    @Test func invalidIdentifierFailsBeforeReachingTheServer() async throws {
        try await TestDatabase.withSchema { pool, _ in
            let hostile = "x; DROP SCHEMA public CASCADE"
            await #expect {
                try await pool.query("CREATE TABLE \(unescaped: hostile).t (a int)")
            } throws: { ($0 as? PostgresError)?.code == .invalidQuery }
        }
    }

    @Test func unreachableServerIsConnectionFailedWithoutPassword() async throws {
        let configuration = try PostgresConfiguration(
            url: "postgresql://hallmark:hunter2@127.0.0.1:1/hallmark", connectTimeout: .seconds(2))
        let pool = PostgresPool(configuration: configuration, logger: TestDatabase.logger)
        defer { pool.close() }
        await #expect {
            try await pool.query("SELECT 1")
        } throws: { error in
            guard let error = error as? PostgresError else { return false }
            return error.code == .connectionFailed && error.isConnectionError && !error.description.contains("hunter2")
        }
        #expect(pool.statistics.open == 0)
    }

    @Test func failedConnectsHandTheirSlotToWaitersAndLeakNothing() async throws {
        let configuration = try PostgresConfiguration(url: "postgresql://hallmark@127.0.0.1:1/hallmark", poolSize: 1)
        let pool = PostgresPool(configuration: configuration, logger: TestDatabase.logger)
        defer { pool.close() }
        let failures = await withTaskGroup(of: PostgresError.Code?.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    do {
                        try await pool.query("SELECT 1")
                        return nil
                    } catch {
                        return (error as? PostgresError)?.code
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(failures == Array(repeating: .connectionFailed, count: 8))
        #expect(pool.statistics == .init(open: 0, idle: 0, waiting: 0))
    }
}
