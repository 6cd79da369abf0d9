import HallmarkPostgres
import Testing

extension PostgresPool {
    /// Waits until `table` (`schema.table`) has a lock with this `granted` in `pg_locks`: a test
    /// that holds a table from another session knows when the holder has it (`granted: true`)
    /// and when the code under test waits for it (`granted: false`).
    public func waitForLock(on table: String, granted: Bool, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let n = try await query(
                "SELECT count(*)::bigint FROM pg_locks WHERE relation = to_regclass(\(table)) AND granted = \(granted)"
            ).decode(Int64.self)
            if n.first ?? 0 > 0 { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("no lock on \(table) with granted = \(granted)")
    }
}
