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
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = withFraction.date(from: text) { return date }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        return plain.date(from: text)
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
