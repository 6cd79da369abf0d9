import Foundation
import HallmarkPostgres
import HallmarkRuntime
import Logging
import ServiceLifecycle
import Synchronization

/// Validations per device over a rolling 24 h (hourly buckets in `validation_counts`), counted
/// in memory and flushed in one batch every interval rather than in each message's
/// transaction: a per-device counter row updated by every validation would be locked until
/// each transaction commits and serialize a busy device's validations.
///
/// A device's count is its stored total as of the last flush plus this replica's unflushed
/// validations, so it may lag other replicas' validations by one interval: fine for
/// thresholds in the thousands. A redelivered request (same message id) is not counted again.
package final class ValidationCounter: Service, Sendable {
    struct State {
        var pending: [Int64: Int] = [:]
        /// Taken from `pending` by a flush that has not committed yet: still counted, or a
        /// validation made during a flush would see the device's count drop by the batch.
        var flushing: [Int64: Int] = [:]
        var known: [Int64: Int] = [:]
        var warnedAt: [Int64: ContinuousClock.Instant] = [:]

        func count(_ id: Int64) -> Int { (known[id] ?? 0) + (flushing[id] ?? 0) + (pending[id] ?? 0) }

        /// Ends a flush of `batch`: its counts are in `known` (committed) or back in `pending`.
        mutating func settle(_ batch: [Int64: Int]) {
            for (id, n) in batch {
                let left = (flushing[id] ?? 0) - n
                flushing[id] = left > 0 ? left : nil
            }
        }
    }

    /// Devices whose stored totals are kept between flushes.
    static let knownLimit = 200_000

    let pool: PostgresPool
    let schema: String
    let interval: Duration
    let logger: Logger
    private let state = Mutex(State())

    /// Creates a counter over `schema`.validation_counts.
    package init(pool: PostgresPool, schema: String, interval: Duration, logger: Logger) {
        self.pool = pool
        self.schema = schema
        self.interval = interval
        self.logger = logger
    }

    /// Counts one validation; returns the device's validations in the window, this one included.
    package func record(_ deviceID: Int64) -> Int {
        state.withLock { s in
            s.pending[deviceID, default: 0] += 1
            return s.count(deviceID)
        }
    }

    /// A device's count without adding a validation (a redelivered request).
    package func current(_ deviceID: Int64) -> Int {
        state.withLock { s in s.count(deviceID) }
    }

    /// True once per device per 24 h on this replica: when it may warn about the device
    /// (the device row's `warned_at` then dedupes across replicas).
    package func mayWarn(_ deviceID: Int64) -> Bool {
        state.withLock { s in
            let now = ContinuousClock.now
            if let at = s.warnedAt[deviceID], now - at < .seconds(86_400) { return false }
            s.warnedAt[deviceID] = now
            return true
        }
    }

    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
            await flushLogging()
        }
        await flushLogging()
    }

    private func flushLogging() async {
        do { try await flush() } catch is CancellationError {
            // Cancelled rather than shut down gracefully: the counts are approximate anyway.
        } catch {
            logger.warning("validation counts not flushed", metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
        }
    }

    /// Writes the pending counts (one statement) and reloads those devices' totals. The values
    /// travel as two array parameters, so any number of devices fits one statement (one bind
    /// parameter per device would pass PostgreSQL's 65,535 after a long database outage, and
    /// every later flush would fail).
    package func flush() async throws {
        let batch = state.withLock { s -> [Int64: Int] in
            let b = s.pending
            s.pending = [:]
            s.flushing.merge(b, uniquingKeysWith: +)
            return b
        }
        guard !batch.isEmpty else { return }
        let devices = batch.keys.sorted()  // a fixed order: concurrent flushers never deadlock
        do {
            let ids = PostgresArray(devices)
            let counts = PostgresArray(devices.map { Int64(batch[$0]!) })
            let totals = try await pool.transaction { connection in
                // WITH ORDINALITY … ORDER BY: rows are locked in the sorted order.
                try await connection.execute(
                    """
                    INSERT INTO \(unescaped: schema).validation_counts AS v (device_id, hour, count)
                    SELECT d.id, date_trunc('hour', now()), d.n::integer
                    FROM unnest(\(ids), \(counts)) WITH ORDINALITY AS d(id, n, i) ORDER BY d.i
                    ON CONFLICT (device_id, hour) DO UPDATE SET count = v.count + EXCLUDED.count
                    """)
                return try await connection.query(
                    """
                    SELECT device_id, sum(count)::bigint FROM \(unescaped: schema).validation_counts
                    WHERE hour > now() - interval '24 hours' AND device_id = ANY(\(ids)) GROUP BY device_id
                    """
                ).decode((Int64, Int64).self)
            }
            state.withLock { s in
                // Bounded: past the limit, keep only the devices seen in this interval.
                if s.known.count > Self.knownLimit { s.known = s.known.filter { batch[$0.key] != nil } }
                for (id, total) in totals { s.known[id] = Int(total) }
                s.settle(batch)
            }
        } catch {
            // Put the counts back for the next flush.
            state.withLock { s in
                s.settle(batch)
                s.pending.merge(batch, uniquingKeysWith: +)
            }
            throw error
        }
    }
}
