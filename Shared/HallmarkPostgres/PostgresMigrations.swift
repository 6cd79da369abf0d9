import Logging

/// Versioned SQL migrations for one schema, applied at start-up.
///
/// ```swift
/// try await PostgresMigrations(schema: "signer", migrations: [
///     .init(version: 1, name: "init", sql: "CREATE TABLE partners (id text PRIMARY KEY);"),
/// ]).apply(on: pool, logger: logger)
/// ```
///
/// `apply` takes a session advisory lock keyed on the schema name (`pg_advisory_lock(hashtext(schema))`),
/// so replicas starting together apply each migration exactly once: the others wait, then find it
/// recorded. It creates the schema (when the role may: a service role is usually given its
/// schema instead) and `<schema>.schema_migrations(version, name, applied_at)` if missing, and runs each pending migration, in version order, in its own transaction together
/// with its `schema_migrations` row, with `search_path` set to the schema (then `public`), so
/// bodies may use unqualified names. Bodies may hold several statements; they must be static SQL
/// from the source, never built from runtime values, and cannot use statements that refuse to run
/// in a transaction (`CREATE INDEX CONCURRENTLY`, `VACUUM`).
public struct PostgresMigrations: Sendable {
    /// One migration: applied once, identified by its version.
    public struct Migration: Sendable, Hashable {
        /// Unique within the schema, 0 or more (0 is the stage runtime's inbox); ascending order.
        public var version: Int
        /// A short label recorded with the version.
        public var name: String
        /// The SQL body; may contain several statements.
        public var sql: String

        public init(version: Int, name: String, sql: String) {
            self.version = version
            self.name = name
            self.sql = sql
        }
    }

    /// The schema the migrations belong to (`[a-z_][a-z0-9_]*`).
    public let schema: String
    /// The migrations, in any order.
    public let migrations: [Migration]

    public init(schema: String, migrations: [Migration]) {
        self.schema = schema
        self.migrations = migrations
    }

    /// Applies the pending migrations and returns the versions this call applied (empty when the
    /// schema was up to date). Throws ``PostgresError/Code/migrationFailed`` (with
    /// ``PostgresError/migrationVersion``) when a body fails; earlier migrations stay applied.
    @discardableResult
    public func apply(on pool: PostgresPool, logger: Logger) async throws -> [Int] {
        try validate()
        return try await pool.withConnection { connection in
            try await connection.query("SELECT pg_advisory_lock(hashtext(\(schema)))")
            do {
                let applied = try await applyLocked(on: connection, logger: logger)
                try await connection.query("SELECT pg_advisory_unlock(hashtext(\(schema)))")
                return applied
            } catch {
                do {
                    try await connection.query("SELECT pg_advisory_unlock(hashtext(\(schema)))", cancellable: false)
                } catch {
                    connection.markBroken()  // closing the session releases the lock
                }
                throw error
            }
        }
    }

    private func validate() throws(PostgresError) {
        guard PostgresQuery.isValidIdentifier(schema) else {
            throw PostgresError(code: .invalidConfiguration, message: "invalid schema name for migrations")
        }
        var seen = Set<Int>()
        for migration in migrations {
            guard migration.version >= 0, migration.version <= Int(Int32.max) else {
                throw PostgresError(code: .invalidConfiguration, message: "migration version \(migration.version) out of range")
            }
            guard seen.insert(migration.version).inserted else {
                throw PostgresError(code: .invalidConfiguration, message: "duplicate migration version \(migration.version)")
            }
        }
    }

    private func applyLocked(on connection: PostgresConnection, logger: Logger) async throws -> [Int] {
        try await createSchemaIfMissing(on: connection)
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS \(unescaped: schema).schema_migrations (
                version int PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """)
        var recorded: [Int: String] = [:]
        for (version, name) in try await connection.query(
            "SELECT version, name FROM \(unescaped: schema).schema_migrations"
        ).decode((Int, String).self) {
            recorded[version] = name
        }
        var applied: [Int] = []
        for migration in migrations.sorted(by: { $0.version < $1.version }) {
            if let name = recorded[migration.version] {
                if name != migration.name {
                    logger.warning(
                        "applied migration has a different name",
                        metadata: [
                            "postgres.schema": "\(schema)", "postgres.migration": "\(migration.version)",
                        ])
                }
                continue
            }
            try await apply(migration, on: connection, logger: logger)
            applied.append(migration.version)
        }
        return applied
    }

    /// Creates the schema only when it is missing: `CREATE SCHEMA IF NOT EXISTS` checks the
    /// database's CREATE privilege first, and a service role that owns its schema (created for
    /// it by the operator) has none.
    private func createSchemaIfMissing(on connection: PostgresConnection) async throws {
        let exists = try await connection.query("SELECT 1 FROM pg_namespace WHERE nspname = \(schema)")
        guard exists.isEmpty else { return }
        do {
            try await connection.query("CREATE SCHEMA IF NOT EXISTS \(unescaped: schema)")
        } catch let error as PostgresError where error.sqlState == "42501" {
            throw PostgresError(
                code: .migrationFailed,
                message: "schema \(schema) does not exist and this role may not create it",
                sqlState: error.sqlState)
        }
    }

    private func apply(_ migration: Migration, on connection: PostgresConnection, logger: Logger) async throws {
        logger.info(
            "applying migration",
            metadata: [
                "postgres.schema": "\(schema)", "postgres.migration": "\(migration.version)",
                "postgres.migration.name": "\(migration.name)",
            ])
        do {
            try await connection.transaction { connection in
                try await connection.query("SET LOCAL search_path TO \(unescaped: schema), public")
                try await connection.executeScript(migration.sql)
                try await connection.query(
                    """
                    INSERT INTO \(unescaped: schema).schema_migrations (version, name)
                    VALUES (\(migration.version), \(migration.name))
                    """)
            }
        } catch let error as PostgresError {
            var failure = PostgresError(
                code: error.isConnectionError ? error.code : .migrationFailed,
                message: error.message, sqlState: error.sqlState,
                constraint: error.constraint)
            failure.migrationVersion = migration.version
            throw failure
        }
    }
}
