import Foundation
import HallmarkCore

/// The SIGN-1 timestamp window check (default ±300 s), as a pure function of "now".
public enum SmileIDTimestamp {
    /// Outcome of a window check.
    public enum Check: String, Sendable, Hashable {
        /// Inside the window.
        case ok
        /// Older than the window.
        case stale = "stale_timestamp"
        /// Further in the future than the window.
        case future = "future_timestamp"
        /// Not a UTC RFC 3339 date-time (see `Timestamp`).
        case malformed
    }

    /// Whether `timestamp` lies within `window` seconds of `now`.
    public static func check(_ timestamp: String, now: Date, window: TimeInterval = 300) -> Check {
        guard let date = Timestamp.parse(timestamp) else { return .malformed }
        let delta = date.timeIntervalSince(now)
        if delta < -window { return .stale }
        if delta > window { return .future }
        return .ok
    }
}
