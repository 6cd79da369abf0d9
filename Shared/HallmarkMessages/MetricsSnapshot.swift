/// What each instance publishes to `hallmark.metrics` (schema `hallmark.metrics.v1`).
/// Timers are in nanoseconds.
public struct MetricsSnapshot: MessageBody {
    public static let schemaName = "hallmark.metrics.v1"

    public struct Value: Codable, Sendable, Equatable {
        public var name: String
        public var dimensions: [String: String]
        public var value: Double

        public init(name: String, dimensions: [String: String], value: Double) {
            self.name = name
            self.dimensions = dimensions
            self.value = value
        }
    }

    public struct Histogram: Codable, Sendable, Equatable {
        public var name: String
        public var dimensions: [String: String]
        public var count: Int
        public var sum: Double
        public var min: Double
        public var max: Double
        public var p50: Double
        public var p90: Double
        public var p99: Double

        public init(
            name: String, dimensions: [String: String], count: Int, sum: Double, min: Double, max: Double,
            p50: Double, p90: Double, p99: Double
        ) {
            self.name = name
            self.dimensions = dimensions
            self.count = count
            self.sum = sum
            self.min = min
            self.max = max
            self.p50 = p50
            self.p90 = p90
            self.p99 = p99
        }
    }

    public var service: String
    public var instance: String
    /// Seconds covered by the histograms (the publishing interval).
    public var intervalSeconds: Double
    public var counters: [Value]
    public var gauges: [Value]
    public var histograms: [Histogram]

    public init(
        service: String, instance: String, intervalSeconds: Double,
        counters: [Value], gauges: [Value], histograms: [Histogram]
    ) {
        self.service = service
        self.instance = instance
        self.intervalSeconds = intervalSeconds
        self.counters = counters
        self.gauges = gauges
        self.histograms = histograms
    }

    enum CodingKeys: String, CodingKey {
        case service, instance, counters, gauges, histograms
        case intervalSeconds = "interval_seconds"
    }
}
