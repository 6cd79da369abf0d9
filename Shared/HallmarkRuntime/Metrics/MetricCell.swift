import HallmarkMessages
import CoreMetrics
import Synchronization

/// One metric's storage; serves as every handler type so one registry map holds them all.
final class MetricCell: CounterHandler, FloatingPointCounterHandler, MeterHandler, RecorderHandler, TimerHandler,
    Sendable
{
    enum Kind { case counter, gauge, histogram }

    struct Window {
        var count = 0
        var sum = 0.0
        var min = Double.infinity
        var max = -Double.infinity
        var samples: [Double] = []
        var generator = SystemRandomNumberGenerator()
    }

    let kind: Kind
    private let reservoirSize: Int
    private let scalar = Mutex<Double>(0)
    private let window = Mutex<Window>(Window())

    init(kind: Kind, reservoirSize: Int) {
        self.kind = kind
        self.reservoirSize = reservoirSize
    }

    var value: Double { scalar.withLock { $0 } }

    // Counter
    func increment(by amount: Int64) { scalar.withLock { $0 += Double(amount) } }
    func increment(by amount: Double) { scalar.withLock { $0 += amount } }
    func reset() { scalar.withLock { $0 = 0 } }
    // Meter
    func set(_ value: Int64) { scalar.withLock { $0 = Double(value) } }
    func set(_ value: Double) { scalar.withLock { $0 = value } }
    func decrement(by amount: Double) { scalar.withLock { $0 -= amount } }
    // Recorder / Timer
    func record(_ value: Int64) { record(Double(value)) }
    func record(_ value: Double) {
        guard kind == .histogram else { return set(value) }
        window.withLock { w in
            w.count += 1
            w.sum += value
            w.min = Swift.min(w.min, value)
            w.max = Swift.max(w.max, value)
            if w.samples.count < reservoirSize {
                w.samples.append(value)
            } else {
                // Reservoir sampling keeps a uniform sample of the interval.
                let slot = Int.random(in: 0..<w.count, using: &w.generator)
                if slot < reservoirSize { w.samples[slot] = value }
            }
        }
    }
    func recordNanoseconds(_ duration: Int64) { record(Double(duration)) }

    func drainHistogram(name: String, dimensions: [String: String]) -> MetricsSnapshot.Histogram {
        let w = window.withLock { w -> Window in
            defer { w = Window() }
            return w
        }
        let sorted = w.samples.sorted()
        func percentile(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let rank = Int((p * Double(sorted.count - 1)).rounded())
            return sorted[rank]
        }
        return MetricsSnapshot.Histogram(
            name: name, dimensions: dimensions, count: w.count, sum: w.sum,
            min: w.count == 0 ? 0 : w.min, max: w.count == 0 ? 0 : w.max,
            p50: percentile(0.5), p90: percentile(0.9), p99: percentile(0.99))
    }
}
