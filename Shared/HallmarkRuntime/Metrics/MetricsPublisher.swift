import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import Logging
import ServiceLifecycle

/// Publishes a ``MetricsSnapshot`` of the registry to the metrics topic on an interval, and
/// once more when the service shuts down. Each snapshot first checks the stages' health
/// (``HealthMonitor/check(stallLimit:)``), so its `hallmark_stage_stalled` gauges are current.
public struct MetricsPublisher: Service {
    let registry: MetricsRegistry
    let producer: KafkaProducer
    let topic: String
    let service: String
    let instance: String
    let interval: Duration
    let health: HealthMonitor?
    let stallLimit: Duration
    let logger: Logger

    public init(
        registry: MetricsRegistry, producer: KafkaProducer, topic: String, service: String,
        instance: String, interval: Duration = .seconds(10), health: HealthMonitor? = nil,
        stallLimit: Duration = HealthFile.Settings.Variable.stallLimit.defaultValue, logger: Logger
    ) {
        self.registry = registry
        self.producer = producer
        self.topic = topic
        self.service = service
        self.instance = instance
        self.interval = interval
        self.health = health
        self.stallLimit = stallLimit
        self.logger = logger
    }

    public func run() async throws {
        // Shutdown cancels the sleep; the runner publishes a last snapshot after every service stopped.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                await publish()
            }
        }
    }

    /// Takes a snapshot now and sends it; failures are logged, never thrown.
    public func publish() async {
        _ = health?.check(stallLimit: stallLimit)
        let (counters, gauges, histograms) = registry.snapshot()
        let snapshot = MetricsSnapshot(
            service: service, instance: instance,
            intervalSeconds: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18,
            counters: counters, gauges: gauges,
            histograms: histograms)
        do {
            try await producer.send(topic: topic, key: Array(instance.utf8), value: JSONCoding.encode(Message(snapshot)))
        } catch {
            logger.warning("metrics snapshot not published", metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
        }
    }
}
