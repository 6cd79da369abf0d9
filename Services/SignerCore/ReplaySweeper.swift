import HallmarkPostgres
import HallmarkRuntime
import Logging

/// Removes expired replay entries every interval.
package enum ReplaySweeper {
    package static func make(store: ReplayStore, pool: PostgresPool, interval: Duration, logger: Logger) -> PeriodicSweeper {
        PeriodicSweeper(
            what: "replay", counter: "hallmark_signer_replay_expired_total", service: "signer",
            interval: interval, logger: logger
        ) { try await store.sweep(pool: pool) }
    }
}
