import Foundation
import HallmarkCrypto
import HallmarkPostgres
import HallmarkRuntime
import Logging
import ServiceLifecycle
import Synchronization

/// Background upkeep while the stage serves: re-seals rows whose KEK is not the current one
/// (KEK rotation), and deletes expired replay records and old validation counters.
/// Runs at start, every interval, and when an admin `rotate_kek` triggers it.
package final class AuthorityMaintenance: Service, Sendable {
    let pool: PostgresPool
    let configuration: AuthorityConfiguration
    let secrets: AuthoritySecrets
    let metrics: AuthorityMetrics
    let logger: Logger
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation

    /// Creates the service.
    package init(
        pool: PostgresPool, configuration: AuthorityConfiguration, secrets: AuthoritySecrets,
        metrics: AuthorityMetrics, logger: Logger
    ) {
        self.pool = pool
        self.configuration = configuration
        self.secrets = secrets
        self.metrics = metrics
        self.logger = logger
        (wake, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks for a pass now.
    package func trigger() { wakeContinuation.yield() }

    package func run() async throws {
        let ticker = Task { [wakeContinuation, configuration] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(configuration.resealIntervalSeconds))
                wakeContinuation.yield()
            }
        }
        defer { ticker.cancel() }
        wakeContinuation.yield()
        await withGracefulShutdownHandler {
            for await _ in wake.cancelOnGracefulShutdown() {
                do {
                    let moved = try await resealAll()
                    try await cleanUp()
                    if moved > 0 { logger.info("re-sealed rows under the current KEK", metadata: ["rows": "\(moved)"]) }
                } catch {
                    logger.warning("maintenance pass failed", metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
                }
            }
        } onGracefulShutdown: { [wakeContinuation] in
            wakeContinuation.finish()
        }
    }

    /// Re-seals every row not under the current KEK, batch by batch; returns rows moved.
    @discardableResult
    package func resealAll() async throws -> Int {
        var total = 0
        while true {
            let moved = try await resealBatch()
            total += moved
            if moved == 0 { return total }
        }
    }

    private func resealBatch() async throws -> Int {
        let schema = configuration.schema
        let current = Int64(secrets.keyring.currentVersion)
        let limit = configuration.resealBatch
        return try await pool.transaction { connection in
            var moved = 0
            let tables = try await connection.query(
                """
                SELECT table_id, master_sealed FROM \(unescaped: schema).key_tables
                WHERE kek_version <> \(current) LIMIT \(limit) FOR UPDATE SKIP LOCKED
                """)
            for (id, sealed) in try tables.decode((Int64, Data).self) {
                let fresh = try AtRestSeal.reseal(
                    sealed, context: KeyTableStore.context(tableId: Int(id)),
                    keyring: secrets.keyring)
                moved += try await connection.execute(
                    """
                    UPDATE \(unescaped: schema).key_tables SET master_sealed = \(fresh), kek_version = \(current)
                    WHERE table_id = \(id)
                    """)
            }
            let devices = try await connection.query(
                """
                SELECT device_id, serial, nuc_sealed FROM \(unescaped: schema).devices
                WHERE kek_version <> \(current) LIMIT \(limit) FOR UPDATE SKIP LOCKED
                """)
            for (id, serial, sealed) in try devices.decode((Int64, String, Data?).self) {
                let fresh = try sealed.map {
                    try AtRestSeal.reseal($0, context: AuthorityProcessor.nucContext(serial: serial), keyring: secrets.keyring)
                }
                moved += try await connection.execute(
                    """
                    UPDATE \(unescaped: schema).devices SET nuc_sealed = \(fresh), kek_version = \(current)
                    WHERE device_id = \(id)
                    """)
            }
            // The manufacturer CAs' keys. (A device certificate's handle cannot move: it is in
            // the certificate. Keep a KEK version while certificates sealed under it are valid.)
            let authorities = try await connection.query(
                """
                SELECT fingerprint, key_sealed FROM \(unescaped: schema).certificate_authorities
                WHERE kek_version <> \(current) LIMIT \(limit) FOR UPDATE SKIP LOCKED
                """)
            for (fingerprint, sealed) in try authorities.decode((Data, Data).self) {
                let fresh = try AtRestSeal.reseal(
                    sealed, context: DeviceCertificateIssuer.keyContext(fingerprint: fingerprint), keyring: secrets.keyring)
                moved += try await connection.execute(
                    """
                    UPDATE \(unescaped: schema).certificate_authorities SET key_sealed = \(fresh), kek_version = \(current)
                    WHERE fingerprint = \(fingerprint)
                    """)
            }
            metrics.resealed.increment(by: moved)
            return moved
        }
    }

    /// Enforces the retention of replay records (their window) and validation counts (25 h, one
    /// more than the abuse thresholds look back); returns the rows deleted of each.
    @discardableResult
    func cleanUp() async throws -> (tokens: Int, counts: Int) {
        let schema = configuration.schema
        let tokens = try await pool.execute("DELETE FROM \(unescaped: schema).seen_tokens WHERE expires_at < now()")
        let counts = try await pool.execute(
            """
            DELETE FROM \(unescaped: schema).validation_counts WHERE hour < now() - interval '25 hours'
            """)
        return (tokens, counts)
    }
}
