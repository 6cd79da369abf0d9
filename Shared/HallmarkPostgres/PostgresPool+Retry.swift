import HallmarkCore

extension PostgresPool {
    /// Runs `body`, retrying it when it fails with a connection-class error
    /// (``PostgresError/isConnectionError``), waiting `initialBackoff`, then twice as long each
    /// time (at most 5 s). Other errors, and the last attempt's error, are rethrown.
    ///
    /// `body` may run more than once: make it idempotent (e.g. a whole transaction).
    public func withRetry<T>(
        attempts: Int = 3,
        initialBackoff: Duration = .milliseconds(100),
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async throws -> T {
        let policy = RetryPolicy(initialDelay: initialBackoff, maxDelay: max(initialBackoff, .seconds(5)), maxAttempts: attempts)
        return try await policy.run { _ in
            try await body()
        } onFailure: { error, failures in
            guard let error = error as? PostgresError, error.isConnectionError else { throw error }
            if failures < attempts {
                logger.warning(
                    "retrying after a connection failure",
                    metadata: ["postgres.attempt": "\(failures)", "postgres.error": "\(error)"])
            }
            return .retry
        }
    }
}
