/// What each instance publishes to `hallmark.metrics` (schema `hallmark.metrics.v1`).
/// Timers are in nanoseconds.
public struct MetricsSnapshot: Codable, Sendable {
    public static let schemaName = "hallmark.metrics.v1"

    public struct Value: Codable, Sendable, Equatable {
        public var name: String
        public var dimensions: [String: String]
        public var value: Double
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
    }

    public var schema: String = MetricsSnapshot.schemaName
    public var id: String
    public var producedAt: String
    public var service: String
    public var instance: String
    /// Seconds covered by the histograms (the publishing interval).
    public var intervalSeconds: Double
    public var counters: [Value]
    public var gauges: [Value]
    public var histograms: [Histogram]

    enum CodingKeys: String, CodingKey {
        case schema, id, service, instance, counters, gauges, histograms
        case producedAt = "produced_at"
        case intervalSeconds = "interval_seconds"
    }
}
