import HallmarkPostgres
import Logging
import ServiceLifecycle

/// Keeps the planner's statistics of a service's own tables in step with them while they are
/// young.
///
/// Autovacuum analyzes a table once a tenth of it has changed, but it visits each database
/// only once a minute (`autovacuum_naptime`). A table that grows from nothing to thousands of
/// rows in a burst has no column statistics until then, and with none the planner takes
/// `key = ANY(batch)` to match a good part of the table and scans all of it, once per batch: in
/// `hallmark bench edge`, the submissions after the first burst read 150 `submissions` rows
/// each that way until autovacuum came (docs/operations.md, "Query plans on growing tables").
///
/// Every interval, this analyzes each table of the service's schema that holds at least
/// ``smallest`` rows and more than twice the rows it held at its last analysis (or was never
/// analyzed): a few times in a table's youth, at 1,000 rows, 2,000, 4,000 and so on, the
/// updates of its rows not counted. Autovacuum's tenth of changes comes first long before a
/// large table doubles. `SKIP_LOCKED`: a replica that finds a table being analyzed leaves it.
public struct TableStatistics: Service {
    let database: StageDatabase
    let interval: Duration
    let logger: Logger
    /// Rows below which a table is left to autovacuum.
    public static let smallest = 1_000

    /// - Parameter interval: `HALLMARK_POSTGRES_ANALYZE_INTERVAL_MS`; zero turns this off.
    public init(database: StageDatabase, interval: Duration, logger: Logger) {
        self.database = database
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        guard interval > .zero else { return }
        await Repeating.run(every: interval, logger: logger, failure: "table statistics not refreshed") {
            try await analyzeLagging()
        }
    }

    /// Analyzes now the schema's tables whose statistics lag behind their growth; returns
    /// their names.
    @discardableResult
    public func analyzeLagging() async throws -> [String] {
        // `reltuples` is -1 for a table never analyzed. Rows, not changes: `submissions`
        // changes three times a bundle, and analyzing it at every third more rows cost more
        // than the plans it saved.
        let lagging = try await database.pool.query(
            """
            SELECT s.relname::text FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
            WHERE s.schemaname = \(database.schema) AND s.n_live_tup >= \(Int64(Self.smallest))
              AND s.n_live_tup > 2 * greatest(c.reltuples, 0)
            ORDER BY s.relname
            """
        ).decode(String.self)
        for table in lagging {
            // A name that is no plain identifier (none of a service's own) throws here.
            try await database.pool.execute("ANALYZE (SKIP_LOCKED) \(unescaped: database.schema).\(unescaped: table)")
            logger.debug("table analyzed", metadata: ["table": "\(table)"])
        }
        return lagging
    }
}
