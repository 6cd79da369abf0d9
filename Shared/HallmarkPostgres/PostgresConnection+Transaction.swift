extension PostgresConnection {
    /// Runs `body` between `BEGIN` and `COMMIT`; rolls back and rethrows if `body` throws.
    ///
    /// Unless the caller is isolated to an actor, `body` runs on the connection's own thread
    /// (``ConnectionThread``), where each statement calls libpq without a hop to another thread.
    ///
    /// For another isolation level, make `SET TRANSACTION ISOLATION LEVEL …` the first statement.
    /// If the transaction was aborted by an error `body` caught, the commit turns into a
    /// rollback and this throws ``PostgresError/Code/queryFailed``. If the connection is lost
    /// during `COMMIT`, whether the transaction committed is unknown.
    public func transaction<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withTaskExecutorPreference(thread, isolation: isolation) {
            try await inTransaction(body)
        }
    }

    private func inTransaction<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await query("BEGIN")
        let value: T
        do {
            value = try await body(self)
        } catch {
            await rollback()
            throw error
        }
        // Once the body is done, commit even if the task was cancelled meanwhile.
        let commit = try await query("COMMIT", cancellable: false)
        guard commit.commandTag == "COMMIT" else {
            throw PostgresError(
                code: .queryFailed,
                message: "transaction was rolled back: an earlier statement in it failed",
                sqlState: "40000")
        }
        return value
    }

    private func rollback() async {
        do {
            try await query("ROLLBACK", cancellable: false)
        } catch {
            // Can't tell what state the session is in: never reuse it.
            markBroken()
        }
    }
}
