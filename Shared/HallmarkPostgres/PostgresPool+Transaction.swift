extension PostgresPool {
    /// Checks out a connection and runs `body` in a transaction on it (see
    /// ``PostgresConnection/transaction(isolation:_:)``).
    public func transaction<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withConnection { connection in
            try await connection.transaction(body)
        }
    }
}
