import Foundation
import Synchronization

/// Counts rejections per partner in fixed windows and says when one partner passes the
/// configured number, once per window (this replica's view; each replica alerts alone).
public final class SecurityEventLimiter: Sendable {
    struct Window {
        var start: Date
        var count: Int
        var alerted: Bool
    }

    public let threshold: Int
    public let window: TimeInterval
    private let partners = Mutex<[String: Window]>([:])
    /// Partners tracked at most; older windows are dropped past it.
    let maxPartners = 100_000

    public init(threshold: Int, window: TimeInterval) {
        self.threshold = threshold
        self.window = window
    }

    /// Records one rejection; returns the window's count when this one crosses the threshold.
    public func record(partner: String, now: Date) -> Int? {
        partners.withLock { all in
            if all.count >= maxPartners {
                all = all.filter { now.timeIntervalSince($0.value.start) < window }
            }
            var w = all[partner] ?? Window(start: now, count: 0, alerted: false)
            if now.timeIntervalSince(w.start) >= window { w = Window(start: now, count: 0, alerted: false) }
            w.count += 1
            let alert = w.count > threshold && !w.alerted
            if alert { w.alerted = true }
            all[partner] = w
            return alert ? w.count : nil
        }
    }
}
