import Foundation

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
        /// Not an ISO 8601 date-time.
        case malformed
    }

    /// Parses `2025-01-01T00:00:00.000Z`-style timestamps (fractional seconds optional).
    public static func parse(_ text: String) -> Date? {
        // Format styles are Sendable values, so nothing is shared between threads.
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    /// Whether `timestamp` lies within `window` seconds of `now`.
    public static func check(_ timestamp: String, now: Date, window: TimeInterval = 300) -> Check {
        guard let date = parse(timestamp) else { return .malformed }
        let delta = date.timeIntervalSince(now)
        if delta < -window { return .stale }
        if delta > window { return .future }
        return .ok
    }
}
