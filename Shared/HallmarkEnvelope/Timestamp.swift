import Foundation

/// ISO 8601 timestamps as Hallmark writes them: UTC with milliseconds, e.g.
/// `2025-01-01T00:00:00.000Z`.
public enum Timestamp {
    /// The current time.
    public static func now() -> String { format(Date()) }

    public static func format(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    /// Parses ISO 8601 with or without fractional seconds; nil when malformed.
    public static func parse(_ text: String) -> Date? {
        if let d = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return d }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
