import HallmarkPostgres

extension PostgresPool {
    /// Waits until `table` has a lock with this `granted` (`pg_locks`): how a test knows that
    /// another session holds the table, or that a statement now waits for it. Throws at
    /// `timeout` (no `Testing` here: the release image builds this module).
    public func waitForLock(on table: String, granted: Bool, timeout: Duration = .seconds(30)) async throws {
        let seen = try await eventually(timeout: timeout, interval: .milliseconds(10)) {
            let n = try await query(
                "SELECT count(*)::bigint FROM pg_locks WHERE relation = to_regclass(\(table)) AND granted = \(granted)"
            ).decode(Int64.self)
            return n.first ?? 0 > 0
        }
        guard seen else { throw HarnessError("no lock on \(table) with granted = \(granted)") }
    }
}
