import HallmarkMessages
import CoreMetrics
import Synchronization

/// A swift-metrics backend that keeps every metric in memory for ``MetricsPublisher``.
///
/// Counters are cumulative since start; gauges hold their last value; histograms (recorders
/// that aggregate, and timers) summarise the samples of the current interval and start afresh
/// after each snapshot.
public final class MetricsRegistry: MetricsFactory, Sendable {
    private let metrics = Mutex<[MetricKey: MetricCell]>([:])
    /// Held while gauges that must agree are set (``together(_:)``) and while a snapshot reads
    /// counters and gauges, so no snapshot sees half of such a group. Taken before `metrics`.
    private let groups = Mutex<Void>(())
    /// Samples kept per histogram per interval for percentiles (reservoir sampling beyond it).
    public let reservoirSize: Int

    public init(reservoirSize: Int = 2048) {
        self.reservoirSize = reservoirSize
    }

    private func cell(_ label: String, _ dimensions: [(String, String)], _ kind: MetricCell.Kind) -> MetricCell {
        let key = MetricKey(label: label, dimensions: dimensions)
        return metrics.withLock { all in
            if let existing = all[key] { return existing }
            let created = MetricCell(kind: kind, reservoirSize: reservoirSize)
            all[key] = created
            return created
        }
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        cell(label, dimensions, .counter)
    }
    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        cell(label, dimensions, .counter)
    }
    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        cell(label, dimensions, .gauge)
    }
    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        cell(label, dimensions, aggregate ? .histogram : .gauge)
    }
    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        cell(label, dimensions, .histogram)
    }
    // Most metrics live as long as the process: Hallmark creates each once, with fixed
    // dimensions. A gauge of something that can go away (a partition's lag, once the partition
    // is revoked) is destroyed, so snapshots stop carrying a value nobody updates.
    public func destroyCounter(_ handler: any CounterHandler) {}
    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    public func destroyMeter(_ handler: any MeterHandler) {
        guard let cell = handler as? MetricCell else { return }
        metrics.withLock { all in
            if let key = all.first(where: { $0.value === cell })?.key { all.removeValue(forKey: key) }
        }
    }
    public func destroyRecorder(_ handler: any RecorderHandler) {}
    public func destroyTimer(_ handler: any TimerHandler) {}

    /// The sum of the counters (or gauges) named `label` over all their dimensions, without
    /// starting a new histogram interval.
    public func total(of label: String) -> Double {
        metrics.withLock { all in all.filter { $0.key.label == label && $0.value.kind != .histogram } }
            .reduce(0) { $0 + $1.value.value }
    }

    /// Runs `body`, which sets, creates or destroys gauges that must agree with each other (a
    /// total and its parts), so that no snapshot reads some of them before it and others after.
    public func together(_ body: () -> Void) {
        groups.withLock { _ in body() }
    }

    /// Reads every metric; histograms then start a new interval.
    public func snapshot() -> (
        counters: [MetricsSnapshot.Value], gauges: [MetricsSnapshot.Value],
        histograms: [MetricsSnapshot.Histogram]
    ) {
        // The metrics that exist and the counters' and gauges' values, at one instant as far as
        // `together` is concerned: a stage's lag was read as the new total beside the old
        // partitions' values. Histograms are drained after, outside it.
        let (all, values) = groups.withLock { _ in
            let all = metrics.withLock { $0 }.sorted(by: { $0.key < $1.key })
            return (all, all.map { $0.value.kind == .histogram ? 0 : $0.value.value })
        }
        var counters: [MetricsSnapshot.Value] = []
        var gauges: [MetricsSnapshot.Value] = []
        var histograms: [MetricsSnapshot.Histogram] = []
        for ((key, cell), value) in zip(all, values) {
            switch cell.kind {
            case .counter: counters.append(.init(name: key.label, dimensions: key.dimensionMap, value: value))
            case .gauge: gauges.append(.init(name: key.label, dimensions: key.dimensionMap, value: value))
            case .histogram:
                histograms.append(cell.drainHistogram(name: key.label, dimensions: key.dimensionMap))
            }
        }
        return (counters, gauges, histograms)
    }
}

/// A metric's identity: label plus sorted dimensions.
struct MetricKey: Hashable, Comparable {
    let label: String
    let dimensions: [String]

    init(label: String, dimensions: [(String, String)]) {
        self.label = label
        self.dimensions = dimensions.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }
    }

    var dimensionMap: [String: String] {
        Dictionary(
            dimensions.map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }, uniquingKeysWith: { a, _ in a })
    }

    static func < (a: MetricKey, b: MetricKey) -> Bool {
        (a.label, a.dimensions.joined(separator: ",")) < (b.label, b.dimensions.joined(separator: ","))
    }
}
