import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import Metrics
import Synchronization

/// The stage loop's metrics, created once with fixed dimensions: the service and the stage's
/// consumer group, so the gauges of two stages in one process (the gateway's envelopes and
/// sessions) never overwrite each other.
final class StageMetrics: Sendable {
    let processed: Counter
    let duplicates: Counter
    let stale: Counter
    let retries: Counter
    let processingTime: Timer
    /// Messages per unit of work (1 for key lanes).
    let batchSize: Recorder
    let inFlight: Meter
    let consumerLag: Meter
    /// Partitions paused because a lane or worker queue was full.
    let pausedPartitions: Meter
    /// Whether the stage's health check finds it stalled (1) or not (0): the health file's verdict.
    let stalled: Meter
    private let dims: [(String, String)]
    private let rejected = Mutex<[RejectionReason: Counter]>([:])
    private let partitionLags = Mutex<[KafkaTopicPartition: Meter]>([:])

    init(service: String, group: String) {
        let dims = [("service", service), ("group", group)]
        self.dims = dims
        processed = Counter(label: "hallmark_stage_processed_total", dimensions: dims)
        duplicates = Counter(label: "hallmark_stage_duplicates_total", dimensions: dims)
        stale = Counter(label: "hallmark_stage_stale_total", dimensions: dims)
        retries = Counter(label: "hallmark_stage_retries_total", dimensions: dims)
        processingTime = Timer(label: "hallmark_stage_processing_ns", dimensions: dims)
        batchSize = Recorder(label: "hallmark_stage_batch_size", dimensions: dims)
        inFlight = Meter(label: "hallmark_stage_in_flight", dimensions: dims)
        consumerLag = Meter(label: "hallmark_stage_consumer_lag", dimensions: dims)
        pausedPartitions = Meter(label: "hallmark_stage_paused_partitions", dimensions: dims)
        stalled = Meter(label: "hallmark_stage_stalled", dimensions: dims)
    }

    /// Sets each assigned partition's lag (`hallmark_stage_partition_lag`, by topic and
    /// partition) and their sum (`hallmark_stage_consumer_lag`). A partition no longer in `lags`
    /// (revoked: another instance reports it now) loses its gauge. All at once for a snapshot of
    /// the process's ``MetricsRegistry`` (`MetricsRegistry.together`): each snapshot's
    /// partition lags add up to its total.
    func setLag(_ lags: [KafkaTopicPartition: Int64]) {
        guard let registry = MetricsSystem.factory as? MetricsRegistry else { return setLagParts(lags) }
        registry.together { setLagParts(lags) }
    }

    private func setLagParts(_ lags: [KafkaTopicPartition: Int64]) {
        consumerLag.set(lags.values.reduce(0, +))
        let gone = partitionLags.withLock { meters -> [Meter] in
            for (partition, lag) in lags {
                let meter =
                    meters[partition]
                    ?? Meter(
                        label: "hallmark_stage_partition_lag",
                        dimensions: dims + [("topic", partition.topic), ("partition", "\(partition.partition)")])
                meters[partition] = meter
                meter.set(lag)
            }
            let revoked = meters.keys.filter { lags[$0] == nil }
            return revoked.compactMap { meters.removeValue(forKey: $0) }
        }
        gone.forEach { $0.destroy() }
    }

    /// One counter per reason code; reasons are a small fixed set per stage.
    func rejected(_ reason: RejectionReason) -> Counter {
        rejected.withLock { cache in
            if let counter = cache[reason] { return counter }
            let counter = Counter(
                label: "hallmark_stage_rejected_total",
                dimensions: dims + [("reason", reason.rawValue)])
            cache[reason] = counter
            return counter
        }
    }
}
