import HallmarkPostgres

extension PostgresPool {
    /// Drops a bench's throw-away schemas; a failure only leaves a schema behind, so it is
    /// ignored (the bench's figures are already printed).
    func dropBenchSchemas(_ schemas: String...) async {
        for schema in schemas {
            _ = try? await execute("DROP SCHEMA IF EXISTS \(unescaped: schema) CASCADE")
        }
    }
}
