import HallmarkPostgres

/// What PostgreSQL did between two readings of its statistics views: the database's commits and
/// statements, and the rows written to each table of some schemas, its TOAST chunks apart (a
/// value moved out of its row is rows too). A phase's delta divided by
/// its messages is its cost in PostgreSQL per message (#55).
struct DatabaseWork: Sendable, Equatable {
    /// Rows inserted, updated and deleted.
    struct Rows: Sendable, Equatable {
        var inserted: Int64 = 0
        var updated: Int64 = 0
        var deleted: Int64 = 0

        var written: Int64 { inserted + updated + deleted }
    }

    var commits: Int64
    /// Statements run in the database (`pg_stat_statements`, which `deploy/local/up` loads into
    /// the schema `hallmark_statistics`);
    /// nil without the extension.
    var statements: Int64?
    var tables: [String: Rows]

    /// The statistics now, once they are settled. Backends send theirs when idle, at most once
    /// a second, so a reading right after a phase may lack its last writes: read until two
    /// readings 1.2 s apart agree (at most 10 s).
    static func settled(_ pool: PostgresPool, schemas: [String]) async throws -> DatabaseWork {
        var last = try await read(pool, schemas: schemas)
        for _ in 0..<8 {
            try await Task.sleep(for: .milliseconds(1200))
            let now = try await read(pool, schemas: schemas)
            if now == last { return now }
            last = now
        }
        return last
    }

    /// One reading (each query is its own transaction, so a fresh snapshot of the statistics).
    static func read(_ pool: PostgresPool, schemas: [String]) async throws -> DatabaseWork {
        let commits: [Int64] = try await pool.query(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
        ).decode(Int64.self)
        let rows = try await pool.query(
            """
            SELECT schemaname || '.' || relname, n_tup_ins, n_tup_upd, n_tup_del FROM pg_stat_user_tables
            WHERE schemaname = ANY(\(PostgresArray(schemas)))
            UNION ALL
            SELECT o.schemaname || '.' || o.relname || ' (TOAST)', t.n_tup_ins, t.n_tup_upd, t.n_tup_del
            FROM pg_stat_user_tables o JOIN pg_class c ON c.oid = o.relid JOIN pg_stat_all_tables t ON t.relid = c.reltoastrelid
            WHERE o.schemaname = ANY(\(PostgresArray(schemas)))
            """
        ).decode((String, Int64, Int64, Int64).self)
        let tables = Dictionary(
            rows.map { ($0.0, Rows(inserted: $0.1, updated: $0.2, deleted: $0.3)) }, uniquingKeysWith: { a, _ in a })
        // Counted as planned and executed, utility statements (BEGIN, COMMIT) included.
        let statements: [Int64]? = try? await pool.query(
            """
            SELECT coalesce(sum(calls), 0)::int8 FROM hallmark_statistics.pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            """
        ).decode(Int64.self)
        return DatabaseWork(commits: commits.isEmpty ? 0 : commits[0], statements: statements?.first, tables: tables)
    }

    /// The work done since `earlier`.
    func since(_ earlier: DatabaseWork) -> DatabaseWork {
        var tables: [String: Rows] = [:]
        for (name, now) in self.tables {
            let then = earlier.tables[name] ?? Rows()
            let delta = Rows(
                inserted: now.inserted - then.inserted, updated: now.updated - then.updated,
                deleted: now.deleted - then.deleted)
            if delta.written != 0 { tables[name] = delta }
        }
        let statements = self.statements.flatMap { now in earlier.statements.map { now - $0 } }
        return DatabaseWork(commits: commits - earlier.commits, statements: statements, tables: tables)
    }

    /// Rows inserted, updated and deleted, over every table read.
    var rowsWritten: Int64 { tables.values.reduce(0) { $0 + $1.written } }

    /// Per `count` messages: commits (the whole database's: the bench's own reads count too),
    /// and rows written per table, most first.
    func summary(per count: Int) -> String {
        let n = Double(max(count, 1))
        let total = tables.values.reduce(Rows()) {
            Rows(inserted: $0.inserted + $1.inserted, updated: $0.updated + $1.updated, deleted: $0.deleted + $1.deleted)
        }
        // Tables written less than once per hundred messages are left out.
        let byTable = tables.filter { Double($0.value.written) / n >= 0.01 }.sorted { $0.value.written > $1.value.written }.map {
            name, rows in
            "\(name.split(separator: ".").last ?? "") \(PhaseWork.format(Double(rows.written) / n))"
        }
        let run = statements.map { "\(PhaseWork.format(Double($0) / n)) statements, " } ?? ""
        return
            "\(run)\(PhaseWork.format(Double(commits) / n)) commits, rows inserted \(PhaseWork.format(Double(total.inserted) / n)), "
            + "updated \(PhaseWork.format(Double(total.updated) / n)), deleted \(PhaseWork.format(Double(total.deleted) / n)); "
            + "written by table: \(byTable.joined(separator: ", "))"
    }
}
