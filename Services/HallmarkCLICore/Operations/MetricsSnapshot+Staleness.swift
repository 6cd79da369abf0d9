import Foundation
import HallmarkMessages

extension Message where Body == MetricsSnapshot {
    /// Whether the instance that sent this snapshot, its latest, has gone silent by `now`: no
    /// snapshot for three of its intervals (and at least 30 s, so a short interval's jitter is
    /// not a stop). `hallmark top` marks such an instance stale; the Prometheus bridge leaves it out.
    package func isStale(at now: Date) -> Bool {
        now.timeIntervalSince(producedAt.date) > max(3 * self.intervalSeconds, 30)
    }
}
