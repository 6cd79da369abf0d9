import Foundation
import HallmarkCore
import HallmarkMessages
import Synchronization

/// What `hallmark metrics serve` serves: the latest snapshot of every instance read from
/// `hallmark.metrics`, as Prometheus text (``PrometheusText``). A stale instance
/// (`Message.isStale(at:)`) is left out, so its series end rather than stand still.
package final class MetricsBridge: Sendable {
    struct State {
        var latest: [String: Message<MetricsSnapshot>] = [:]
        var totals: [String: PrometheusText.Totals] = [:]
    }

    private let state = Mutex(State())

    package init() {}

    /// Takes a snapshot; one no newer than the instance's latest (a replay) changes nothing.
    /// Its histograms' counts and sums are added to the running totals.
    package func add(_ snapshot: Message<MetricsSnapshot>) {
        state.withLock { s in
            if let current = s.latest[snapshot.instance], current.producedAt.date >= snapshot.producedAt.date { return }
            s.latest[snapshot.instance] = snapshot
            for h in snapshot.histograms {
                let key = PrometheusText.seriesKey(instance: snapshot.instance, name: h.name, dimensions: h.dimensions)
                s.totals[key, default: .init()].count += Double(h.count)
                s.totals[key, default: .init()].sum += h.sum
            }
        }
    }

    /// The exposition as of `now`.
    package func exposition(now: Date = Date()) -> String {
        let (snapshots, totals) = state.withLock { s in
            (
                s.latest.values.filter { !$0.isStale(at: now) }
                    .sorted { ($0.service, $0.instance) < ($1.service, $1.instance) }, s.totals
            )
        }
        return PrometheusText.render(snapshots, totals: totals)
    }
}
