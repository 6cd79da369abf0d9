import Foundation
import HallmarkPostgres
import Logging
import Synchronization
import Testing

/// The server's messages can quote bound values (`invalid input syntax for type uuid: "…"`, a
/// duplicated key, a `RAISE` with `%`): a ``PostgresError`` and the notice log keep only the
/// SQLSTATE, its condition name and the constraint.
@Suite("Server messages never become text", .timeLimit(.minutes(2)))
struct ServerMessageTests {
    /// A value that must never appear in an error or a log: a "secret" and a part of it.
    static let secret = "sk_live_9f8e7d6c5b4a-DO-NOT-LOG"
    static let fragments = [secret, "sk_live", "DO-NOT-LOG"]

    static func leaks(_ text: String) -> Bool { fragments.contains { text.contains($0) } }

    @Test func aValueTheServerWouldQuoteStaysOutOfTheError() async throws {
        try await TestDatabase.withSchema { pool, schema in
            try await pool.execute("CREATE TABLE \(unescaped: schema).sessions (id uuid PRIMARY KEY)")
            await #expect {
                try await pool.execute("INSERT INTO \(unescaped: schema).sessions (id) VALUES (\(Self.secret)::uuid)")
            } throws: { error in
                guard let error = error as? PostgresError else { return false }
                return error.code == .queryFailed && error.sqlState == "22P02"
                    && error.condition == "invalid_text_representation"
                    && error.message == "server error: invalid_text_representation"
                    && !Self.leaks(error.description) && !Self.leaks(error.message)
                    && !Self.leaks(String(reflecting: error))
            }
        }
    }

    @Test func aDuplicateKeyKeepsOnlyItsConstraint() async throws {
        try await TestDatabase.withSchema { pool, schema in
            try await pool.execute(
                """
                CREATE TABLE \(unescaped: schema).partners (name text CONSTRAINT partners_name_key UNIQUE)
                """)
            try await pool.execute("INSERT INTO \(unescaped: schema).partners VALUES (\(Self.secret))")
            await #expect {
                try await pool.execute("INSERT INTO \(unescaped: schema).partners VALUES (\(Self.secret))")
            } throws: { error in
                guard let error = error as? PostgresError else { return false }
                return error.isUniqueViolation && error.condition == "unique_violation"
                    && error.constraint == "partners_name_key" && !Self.leaks(String(reflecting: error))
            }
        }
    }

    /// Even a message written by SQL code (a function raising with the value) is dropped.
    @Test func aRaisedMessageIsDroppedToo() async throws {
        try await TestDatabase.withSchema { pool, schema in
            try await pool.execute(
                """
                CREATE FUNCTION \(unescaped: schema).check_token(t text) RETURNS void LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'bad token %', t USING ERRCODE = '22023', DETAIL = t, HINT = t; END $$
                """)
            await #expect {
                try await pool.query("SELECT \(unescaped: schema).check_token(\(Self.secret))")
            } throws: { error in
                guard let error = error as? PostgresError else { return false }
                return error.sqlState == "22023" && error.condition == "invalid_parameter_value"
                    && !Self.leaks(String(reflecting: error))
            }
        }
    }

    @Test func unknownCodesFallBackToTheirClass() {
        var error = PostgresError(code: .queryFailed, message: "x", sqlState: "23P99")
        #expect(error.condition == "integrity_constraint_violation")
        error.sqlState = "ZZ999"
        #expect(error.condition == nil)
        error.sqlState = "42501"
        #expect(error.condition == "insufficient_privilege")
    }

    @Test func noticesAreLoggedWithoutTheirText() async throws {
        let logs = CapturedLogs()
        var logger = Logger(label: "notices") { _ in CapturingLogHandler(logs) }
        logger.logLevel = .debug
        try await TestDatabase.withSchema { setup, schema in
            try await setup.execute(
                """
                CREATE FUNCTION \(unescaped: schema).note(t text) RETURNS void LANGUAGE plpgsql AS $$
                BEGIN RAISE NOTICE 'looked up %', t USING DETAIL = t; END $$
                """)
            let pool = PostgresPool(
                configuration: try PostgresConfiguration(url: try TestDatabase.url, poolSize: 1),
                logger: logger)
            defer { pool.close() }
            try await pool.query("SELECT \(unescaped: schema).note(\(Self.secret))")
        }
        let notices = logs.lines.filter { $0.hasPrefix("postgres notice") }
        #expect(notices.count == 1)
        #expect(notices.first?.contains("00000") == true)  // the SQLSTATE of a plain RAISE NOTICE
        #expect(!logs.lines.contains(where: Self.leaks))
    }
}

/// Every line logged, with its metadata, as text.
final class CapturedLogs: Sendable {
    private let storage = Mutex<[String]>([])
    var lines: [String] { storage.withLock { $0 } }
    func append(_ line: String) { storage.withLock { $0.append(line) } }
}

struct CapturingLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    let logs: CapturedLogs

    init(_ logs: CapturedLogs) { self.logs = logs }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
        logs.append("\(event.message) \(all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })")
    }
}
