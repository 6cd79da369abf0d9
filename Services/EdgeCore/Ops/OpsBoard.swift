import Foundation
import HallmarkMessages

/// What the `/ops` page draws, kept from the snapshots on `hallmark.metrics` and the events on
/// `hallmark.security` as they arrive: per stage (service and consumer group, all its instances
/// together) messages per second in and out, processing p50 and p99, and lag; rejections and
/// security events per minute; the log's size and its witnessed size. Values fall into buckets
/// of ``bucketSeconds`` and only the last ``windowSeconds`` are kept, so memory is bounded
/// whatever the traffic.
package struct OpsBoard: Sendable {
    package struct StageKey: Hashable, Sendable, Comparable {
        package var service: String
        package var group: String
        package static func < (a: StageKey, b: StageKey) -> Bool { (a.service, a.group) < (b.service, b.group) }
    }

    /// One stage's values in one bucket, by instance: its lag and timings are the replica's
    /// latest in the bucket; its rates are the bucket's mean, so a burst between two snapshots
    /// still shows when later snapshots in the bucket saw nothing.
    struct StageBucket: Sendable {
        /// Messages consumed and processed, and the seconds they took, summed over the bucket.
        struct Counts: Sendable {
            var consumed = 0.0, processed = 0.0, seconds = 0.0
        }
        var counts: [String: Counts] = [:]
        var inPerSecond: [String: Double] { counts.mapValues { $0.consumed / $0.seconds } }
        var outPerSecond: [String: Double] { counts.mapValues { $0.processed / $0.seconds } }
        var lag: [String: Double] = [:]
        var timings: [String: (p50: Double, p99: Double, count: Int)] = [:]
    }

    package let bucketSeconds: Int
    package let windowSeconds: Int
    package let eventLimit: Int
    /// Every instance's latest snapshot (within the window).
    private(set) var latest: [String: Message<MetricsSnapshot>] = [:]
    private(set) var stages: [StageKey: [Int: StageBucket]] = [:]
    private(set) var rejections: [Int: Double] = [:]
    private(set) var securityEvents: [Int: Double] = [:]
    private(set) var treeSize: [Int: Double] = [:]
    private(set) var witnessedSize: [Int: Double] = [:]
    /// The newest security events, newest last, at most ``eventLimit``.
    private(set) var events: [Message<SecurityEvent>] = []

    package init(bucketSeconds: Int = 10, windowSeconds: Int = 900, eventLimit: Int = 10) {
        self.bucketSeconds = max(1, bucketSeconds)
        self.windowSeconds = max(bucketSeconds, windowSeconds)
        self.eventLimit = eventLimit
    }

    /// The bucket a time falls in: its start, in Unix seconds.
    func bucket(_ date: Date) -> Int {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        return seconds - ((seconds % bucketSeconds) + bucketSeconds) % bucketSeconds
    }

    /// Takes an instance's snapshot; one no newer than its latest (a replay) changes nothing.
    /// Rates come from the change of its cumulative counters since its previous snapshot; a
    /// counter that fell (the instance restarted under its name) gives no rate.
    package mutating func add(_ snapshot: Message<MetricsSnapshot>) {
        let instance = snapshot.instance
        let before = latest[instance]
        if let before, before.producedAt.date >= snapshot.producedAt.date { return }
        latest[instance] = snapshot
        let t = bucket(snapshot.producedAt.date)
        let seconds = before.map { snapshot.producedAt.date.timeIntervalSince($0.producedAt.date) } ?? 0

        for group in Self.stageGroups(snapshot) {
            let key = StageKey(service: snapshot.service, group: group)
            var b = stages[key, default: [:]][t, default: StageBucket()]
            b.lag[instance] = Self.value(snapshot.gauges, "hallmark_stage_consumer_lag", group: group)
            let timing = snapshot.histograms.first {
                $0.name == "hallmark_stage_processing_ns" && $0.dimensions["group"] == group
            }
            if let timing, timing.count > 0 { b.timings[instance] = (timing.p50 / 1e6, timing.p99 / 1e6, timing.count) }
            if let before, seconds > 0 {
                let out = Self.processed(snapshot, group) - Self.processed(before, group)
                let consumed = Self.consumed(snapshot, group) - Self.consumed(before, group)
                if out >= 0, consumed >= 0 {
                    var counts = b.counts[instance] ?? StageBucket.Counts()
                    counts.processed += out
                    counts.consumed += consumed
                    counts.seconds += seconds
                    b.counts[instance] = counts
                }
            }
            stages[key, default: [:]][t] = b
        }
        if let before {
            let rejected =
                Self.sum(snapshot.counters, "hallmark_stage_rejected_total")
                - Self.sum(before.counters, "hallmark_stage_rejected_total")
            if rejected >= 0 { rejections[t, default: 0] += rejected }
        }
        if let size = snapshot.gauges.first(where: { $0.name == "hallmark_aggregator_tree_size" })?.value {
            treeSize[t] = max(treeSize[t] ?? 0, size)
        }
        if let size = snapshot.gauges.first(where: { $0.name == "hallmark_aggregator_witnessed_tree_size" })?.value {
            witnessedSize[t] = max(witnessedSize[t] ?? 0, size)
        }
        prune(before: t - windowSeconds)
    }

    /// Takes a security event: it counts in its bucket and joins the latest.
    package mutating func add(_ event: Message<SecurityEvent>) {
        securityEvents[bucket(event.producedAt.date), default: 0] += 1
        events.append(event)
        events.sort { $0.producedAt.date < $1.producedAt.date }
        if events.count > eventLimit { events.removeFirst(events.count - eventLimit) }
    }

    private mutating func prune(before oldest: Int) {
        for key in stages.keys { stages[key] = stages[key]?.filter { $0.key >= oldest } }
        stages = stages.filter { !$0.value.isEmpty }
        rejections = rejections.filter { $0.key >= oldest }
        securityEvents = securityEvents.filter { $0.key >= oldest }
        treeSize = treeSize.filter { $0.key >= oldest }
        witnessedSize = witnessedSize.filter { $0.key >= oldest }
        latest = latest.filter { bucket($0.value.producedAt.date) >= oldest }
    }

    /// The consumer groups a snapshot has stage metrics of.
    static func stageGroups(_ s: Message<MetricsSnapshot>) -> [String] {
        let names = (s.counters + s.gauges).filter { $0.name.hasPrefix("hallmark_stage_") }.compactMap { $0.dimensions["group"] }
        return Array(Set(names)).sorted()
    }

    static func value(_ values: [MetricsSnapshot.Value], _ name: String, group: String) -> Double {
        values.reduce(0) { $1.name == name && $1.dimensions["group"] == group ? $0 + $1.value : $0 }
    }

    static func sum(_ values: [MetricsSnapshot.Value], _ name: String) -> Double {
        values.reduce(0) { $1.name == name ? $0 + $1.value : $0 }
    }

    static func processed(_ s: Message<MetricsSnapshot>, _ group: String) -> Double {
        value(s.counters, "hallmark_stage_processed_total", group: group)
    }

    static func consumed(_ s: Message<MetricsSnapshot>, _ group: String) -> Double {
        processed(s, group) + value(s.counters, "hallmark_stage_rejected_total", group: group)
            + value(s.counters, "hallmark_stage_duplicates_total", group: group)
    }
}
