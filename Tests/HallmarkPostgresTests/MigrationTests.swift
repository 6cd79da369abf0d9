import HallmarkPostgres
import Testing

@Suite("PostgresMigrations", .timeLimit(.minutes(5)))
struct MigrationTests {
    static func migrations(_ schema: String) -> [PostgresMigrations.Migration] {
        [
            // Not idempotent on purpose: applying any of these twice fails or double-counts.
            .init(
                version: 1, name: "init",
                sql: """
                    CREATE TABLE partners (id text PRIMARY KEY, name text NOT NULL);
                    CREATE TABLE applied_log (version int NOT NULL);
                    INSERT INTO applied_log VALUES (1);
                    """),
            .init(
                version: 3, name: "index",
                sql: """
                    CREATE INDEX partners_name ON partners (name);
                    INSERT INTO applied_log VALUES (3);
                    """),
            .init(
                version: 2, name: "secrets",
                sql: """
                    CREATE TABLE secrets (partner_id text REFERENCES partners, version int, sealed bytea);
                    INSERT INTO applied_log VALUES (2);
                    """),
        ]
    }

    private func recorded(_ pool: PostgresPool, _ schema: String) async throws -> [Int] {
        try await pool.query("SELECT version FROM \(unescaped: schema).schema_migrations ORDER BY version")
            .decode(Int.self)
    }

    @Test func appliesPendingMigrationsInOrderOnce() async throws {
        try await TestDatabase.withSchema { pool, schema in
            let migrations = PostgresMigrations(schema: schema, migrations: Self.migrations(schema))
            #expect(try await migrations.apply(on: pool, logger: TestDatabase.logger) == [1, 2, 3])
            #expect(try await migrations.apply(on: pool, logger: TestDatabase.logger) == [])
            #expect(try await recorded(pool, schema) == [1, 2, 3])
            let log = try await pool.query("SELECT version FROM \(unescaped: schema).applied_log").decode(Int.self)
            #expect(log == [1, 2, 3])
            let names = try await pool.query("SELECT name FROM \(unescaped: schema).schema_migrations ORDER BY version")
            #expect(try names.decode(String.self) == ["init", "secrets", "index"])
        }
    }

    @Test func createsTheSchemaWhenMissing() async throws {
        try await TestDatabase.withSchema { pool, schema in
            let fresh = schema + "_new"
            let applied = try await PostgresMigrations(schema: fresh, migrations: Self.migrations(fresh))
                .apply(on: pool, logger: TestDatabase.logger)
            #expect(applied == [1, 2, 3])
            #expect(try await recorded(pool, fresh) == [1, 2, 3])
            try await pool.execute("DROP SCHEMA \(unescaped: fresh) CASCADE")
        }
    }

    @Test func twoPoolsApplyingAtOnceApplyEachVersionExactlyOnce() async throws {
        try await TestDatabase.withSchema { pool, schema in
            let first = try TestDatabase.makePool(poolSize: 2)
            let second = try TestDatabase.makePool(poolSize: 2)
            defer { first.close(); second.close() }
            let migrations = PostgresMigrations(schema: schema, migrations: Self.migrations(schema))
            async let a = migrations.apply(on: first, logger: TestDatabase.logger)
            async let b = migrations.apply(on: second, logger: TestDatabase.logger)
            let (appliedA, appliedB) = try await (a, b)
            #expect((appliedA + appliedB).sorted() == [1, 2, 3])
            #expect(try await recorded(pool, schema) == [1, 2, 3])
            let log = try await pool.query("SELECT version FROM \(unescaped: schema).applied_log ORDER BY version")
            #expect(try log.decode(Int.self) == [1, 2, 3])
        }
    }

    @Test func aFailingMigrationStopsAndCanBeFixed() async throws {
        try await TestDatabase.withSchema { pool, schema in
            var migrations = Self.migrations(schema)
            migrations[2].sql = "CREATE TABLE secrets (id int); SELECT * FROM no_such_table;"
            await #expect {
                try await PostgresMigrations(schema: schema, migrations: migrations).apply(on: pool, logger: TestDatabase.logger)
            } throws: { error in
                guard let error = error as? PostgresError else { return false }
                return error.code == .migrationFailed && error.migrationVersion == 2 && error.sqlState == "42P01"
            }
            #expect(try await recorded(pool, schema) == [1])
            // The failed body rolled back whole, and the advisory lock was released.
            let applied = try await PostgresMigrations(schema: schema, migrations: Self.migrations(schema))
                .apply(on: pool, logger: TestDatabase.logger)
            #expect(applied == [2, 3])
        }
    }

    @Test func rejectsBadSchemaNamesAndDuplicateVersions() async throws {
        try await TestDatabase.withSchema { pool, schema in
            await #expect {
                try await PostgresMigrations(schema: "Bad-Name", migrations: []).apply(on: pool, logger: TestDatabase.logger)
            } throws: { ($0 as? PostgresError)?.code == .invalidConfiguration }
            let twice = [
                PostgresMigrations.Migration(version: 1, name: "a", sql: "SELECT 1"),
                PostgresMigrations.Migration(version: 1, name: "b", sql: "SELECT 2"),
            ]
            await #expect {
                try await PostgresMigrations(schema: schema, migrations: twice).apply(on: pool, logger: TestDatabase.logger)
            } throws: { ($0 as? PostgresError)?.code == .invalidConfiguration }
        }
    }
}
