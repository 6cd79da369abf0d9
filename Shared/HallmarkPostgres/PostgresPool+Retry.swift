extension PostgresPool {
    /// Runs `body`, retrying it when it fails with a connection-class error
    /// (``PostgresError/isConnectionError``), waiting `initialBackoff`, then twice as long each
    /// time. Other errors, and the last attempt's error, are rethrown.
    ///
    /// `body` may run more than once: make it idempotent (e.g. a whole transaction).
    public func withRetry<T>(
        attempts: Int = 3,
        initialBackoff: Duration = .milliseconds(100),
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async throws -> T {
        var delay = initialBackoff
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch let error as PostgresError where error.isConnectionError && attempt < attempts {
                logger.warning(
                    "retrying after a connection failure",
                    metadata: [
                        "postgres.attempt": "\(attempt)", "postgres.error": "\(error)",
                    ])
                try await Task.sleep(for: delay)
                delay *= 2
                attempt += 1
            }
        }
    }
}
