import HallmarkMessages
import Foundation
import HallmarkCrypto
import HallmarkPostgres

/// Generates key tables 0..<count: random master keys sealed under the current KEK.
/// Resumable: ids already present are kept, each batch commits on its own, so an
/// interrupted run loses at most one batch and the next run fills in the rest.
package struct TableGenerator: Sendable {
    let pool: PostgresPool
    let schema: String
    let secrets: AuthoritySecrets
    /// Tables per transaction.
    package var batchSize = 100

    /// Creates a generator.
    package init(pool: PostgresPool, schema: String, secrets: AuthoritySecrets) {
        self.pool = pool
        self.schema = schema
        self.secrets = secrets
    }

    /// Ids in 0..<count that have no table yet.
    package func missing(count: Int) async throws -> [Int] {
        let rows = try await pool.query(
            """
            SELECT table_id FROM \(unescaped: schema).key_tables WHERE table_id < \(count)
            """)
        let present = Set(try rows.map { Int(try $0.column(0, as: Int64.self)) })
        return (0..<count).filter { !present.contains($0) }
    }

    /// Fills in the missing tables; `progress(done, total)` after each batch, where `done`
    /// counts tables present out of `count`. Returns how many it created.
    @discardableResult
    package func generate(count: Int, progress: @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> Int {
        guard count > 0, count <= BirthmarkKeys.tableIds.upperBound else {
            throw AuthorityError(.invalidInput, "count must be 1...\(BirthmarkKeys.tableIds.upperBound)")
        }
        let todo = try await missing(count: count)
        var done = count - todo.count
        progress(done, count)
        var created = 0
        for start in stride(from: 0, to: todo.count, by: batchSize) {
            let batch = todo[start..<min(start + batchSize, todo.count)]
            var rows: [(Int, Data)] = []
            for id in batch {
                let sealed = try AtRestSeal.seal(
                    BirthmarkKeys.newMasterKey(), context: KeyTableStore.context(tableId: id),
                    keyring: secrets.keyring)
                rows.append((id, sealed))
            }
            let version = Int64(secrets.keyring.currentVersion)
            created += try await pool.transaction { connection in
                var n = 0
                for (id, sealed) in rows {
                    n += try await connection.execute(
                        """
                        INSERT INTO \(unescaped: schema).key_tables (table_id, master_sealed, kek_version)
                        VALUES (\(id), \(sealed), \(version)) ON CONFLICT (table_id) DO NOTHING
                        """)
                }
                return n
            }
            done += batch.count
            progress(done, count)
        }
        return created
    }
}
