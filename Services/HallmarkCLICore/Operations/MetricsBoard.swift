import Foundation
import HallmarkCore
import HallmarkMessages

/// What `hallmark top` shows, computed from the snapshots on `hallmark.metrics` and the events on
/// `hallmark.security`: per service instance, messages per second in and out (from the change
/// of its cumulative stage counters between its last two snapshots), processing latency, consumer
/// lag and rejections by reason, and the latest security events.
package struct MetricsBoard: Sendable {
    /// One instance's line.
    package struct Row: Sendable, Equatable {
        package var service: String
        package var instance: String
        /// Everything its stages consumed (processed, rejected, duplicates), per second.
        package var inPerSecond: Double?
        /// Messages processed (answered, typed answers included), per second.
        package var outPerSecond: Double?
        /// Processing time per message or batch over the last interval, in milliseconds.
        package var p50Milliseconds: Double?
        package var p99Milliseconds: Double?
        package var lag: Double
        /// Processed and rejected since the instance started.
        package var processed: Double
        package var rejected: Double
        /// Cumulative rejections by reason code, largest first.
        package var rejections: [(reason: String, count: Double)]
        /// No snapshot for three intervals (at least 30 s): the instance has stopped or is stuck.
        package var stale: Bool

        package static func == (a: Row, b: Row) -> Bool {
            a.service == b.service && a.instance == b.instance && a.inPerSecond == b.inPerSecond
                && a.outPerSecond == b.outPerSecond && a.p50Milliseconds == b.p50Milliseconds
                && a.p99Milliseconds == b.p99Milliseconds && a.lag == b.lag && a.processed == b.processed
                && a.rejected == b.rejected && a.stale == b.stale
                && a.rejections.map(\.reason) == b.rejections.map(\.reason)
                && a.rejections.map(\.count) == b.rejections.map(\.count)
        }
    }

    struct Sample: Sendable {
        var snapshot: Message<MetricsSnapshot>
        var at: Date
    }

    private var latest: [String: Sample] = [:]
    private var previous: [String: Sample] = [:]
    /// The newest security events, newest last, at most ``eventLimit``.
    package private(set) var events: [Message<SecurityEvent>] = []
    package let eventLimit: Int

    package init(eventLimit: Int = 5) { self.eventLimit = eventLimit }

    /// Takes a snapshot; an older one than the instance's latest (a replay) is ignored.
    package mutating func add(_ snapshot: Message<MetricsSnapshot>) {
        let at = snapshot.producedAt.date
        if let current = latest[snapshot.instance] {
            guard at > current.at else { return }
            previous[snapshot.instance] = current
        }
        latest[snapshot.instance] = Sample(snapshot: snapshot, at: at)
    }

    package mutating func add(_ event: Message<SecurityEvent>) {
        events.append(event)
        events.sort { $0.producedAt.date < $1.producedAt.date }
        if events.count > eventLimit { events.removeFirst(events.count - eventLimit) }
    }

    /// The latest snapshot of every instance, by service then instance.
    package var snapshots: [Message<MetricsSnapshot>] {
        latest.values.map(\.snapshot).sorted { ($0.service, $0.instance) < ($1.service, $1.instance) }
    }

    package func rows(now: Date) -> [Row] {
        latest.values.sorted { ($0.snapshot.service, $0.snapshot.instance) < ($1.snapshot.service, $1.snapshot.instance) }
            .map { row(for: $0, now: now) }
    }

    func row(for current: Sample, now: Date) -> Row {
        let s = current.snapshot
        let instance = s.instance
        var row = Row(
            service: s.service, instance: instance, lag: Self.sum(s.gauges, "hallmark_stage_consumer_lag"),
            processed: Self.sum(s.counters, "hallmark_stage_processed_total"),
            rejected: Self.sum(s.counters, "hallmark_stage_rejected_total"), rejections: [],
            stale: s.isStale(at: now))
        if let before = previous[instance] {
            let seconds = current.at.timeIntervalSince(before.at)
            let outDelta = row.processed - Self.sum(before.snapshot.counters, "hallmark_stage_processed_total")
            let inDelta = Self.consumed(s) - Self.consumed(before.snapshot)
            // Counters only fall when the instance restarted under the same name: no rate then.
            if seconds > 0, outDelta >= 0, inDelta >= 0 {
                row.outPerSecond = outDelta / seconds
                row.inPerSecond = inDelta / seconds
            }
        }
        let timings = s.histograms.filter { $0.name == "hallmark_stage_processing_ns" && $0.count > 0 }
        let count = timings.reduce(0) { $0 + $1.count }
        if count > 0 {
            row.p50Milliseconds = timings.reduce(0) { $0 + $1.p50 * Double($1.count) } / Double(count) / 1e6
            row.p99Milliseconds = (timings.map(\.p99).max() ?? 0) / 1e6
        }
        var byReason: [String: Double] = [:]
        for counter in s.counters where counter.name == "hallmark_stage_rejected_total" && counter.value > 0 {
            byReason[counter.dimensions["reason"] ?? "unknown", default: 0] += counter.value
        }
        row.rejections = byReason.map { (reason: $0.key, count: $0.value) }
            .sorted { ($0.count, $1.reason) > ($1.count, $0.reason) }
        return row
    }

    static func sum(_ values: [MetricsSnapshot.Value], _ name: String) -> Double {
        values.reduce(0) { $1.name == name ? $0 + $1.value : $0 }
    }

    static func consumed(_ s: Message<MetricsSnapshot>) -> Double {
        sum(s.counters, "hallmark_stage_processed_total") + sum(s.counters, "hallmark_stage_rejected_total")
            + sum(s.counters, "hallmark_stage_duplicates_total")
    }
}
