import Foundation

extension Message where Body == MetricsSnapshot {
    /// Whether the instance that sent this snapshot, its latest, has gone silent by `now`: no
    /// snapshot for three of its intervals (and at least 30 s, so a short interval's jitter is
    /// not a stop). `hallmark top` and the edge's `/ops` page mark such an instance stale; the
    /// Prometheus bridge leaves it out.
    public func isStale(at now: Date) -> Bool {
        now.timeIntervalSince(producedAt.date) > max(3 * self.intervalSeconds, 30)
    }
}
