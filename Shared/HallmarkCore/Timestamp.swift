import Foundation

/// Hallmark's one timestamp format and its one parser: RFC 3339 in UTC, as every message's
/// `produced_at` and SIGN-1's `SmileID-Request-Timestamp` carry it, e.g.
/// `2025-01-01T00:00:00.000Z`.
///
/// Parsing is strict: `YYYY-MM-DDTHH:MM:SS` with an optional fraction of 1–9 digits and a
/// final `Z`; years 0001–9999; real calendar dates (no 2025-02-30); no offsets (`+05:30`),
/// no lower-case `t`/`z`, no leap second, nothing before or after. The JSON Schemas say the
/// same (`$defs/timestamp`).
///
/// A value is an instant with its text exactly as written, so a message read and written again
/// keeps its `produced_at` byte for byte (an operator's signature covers it).
public struct Timestamp: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The text, exactly as written.
    public let text: String
    /// The instant it names.
    public let date: Date

    /// `text` when it is of the format above; nil otherwise.
    public init?(_ text: String) {
        guard let date = Self.parse(text) else { return nil }
        self.text = text
        self.date = date
    }

    /// `date`, written with milliseconds (truncated).
    public init(_ date: Date) {
        let millis = Self.milliseconds(date)
        guard let (text, date) = Self.written(millis) else {
            // Years outside 0001–9999: the format cannot say them (this traps, as before).
            text = Self.format(date)
            self.date = Self.parse(text)!
            return
        }
        self.text = text
        self.date = date
    }

    /// The current time.
    public static func now() -> Timestamp { Timestamp(Date()) }

    public var description: String { text }

    /// Reads a string of the format; anything else is a `DecodingError`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let timestamp = Timestamp(try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 UTC timestamp")
        }
        self = timestamp
    }

    /// Writes the text as it was read.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    /// `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ` (milliseconds, truncated).
    public static func format(_ date: Date) -> String {
        let millis = milliseconds(date)
        if let (text, _) = written(millis) { return text }
        let (days, msOfDay) = CivilCalendar.floorDivide(millis, 86_400_000)
        let (y, m, d) = CivilCalendar.date(days: days)
        let pad = CivilCalendar.pad
        let s = msOfDay / 1000
        var out = ""
        out.reserveCapacity(24)
        out += pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T"
        out += pad(s / 3600, 2) + ":" + pad(s / 60 % 60, 2) + ":" + pad(s % 60, 2) + "." + pad(msOfDay % 1000, 3) + "Z"
        return out
    }

    /// Milliseconds since 1970 of `date`, truncated.
    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// `millis` written as ``format(_:)`` writes it, with the instant ``parse(_:)`` reads back
    /// from that text (the same arithmetic, so the same `Date`); nil for a year outside
    /// 0001–9999. Into 24 bytes at once: every message Hallmark writes carries one, and
    /// padding each field as a string, then parsing the text back, was most of an answer's
    /// header.
    static func written(_ millis: Int64) -> (text: String, date: Date)? {
        let (days, msOfDay) = CivilCalendar.floorDivide(millis, 86_400_000)
        let (y, m, d) = CivilCalendar.date(days: days)
        guard (1...9999).contains(y) else { return nil }
        let seconds = msOfDay / 1000
        let fields: [(value: Int64, width: Int, after: UInt8)] = [
            (y, 4, UInt8(ascii: "-")), (m, 2, UInt8(ascii: "-")), (d, 2, UInt8(ascii: "T")),
            (seconds / 3600, 2, UInt8(ascii: ":")), (seconds / 60 % 60, 2, UInt8(ascii: ":")),
            (seconds % 60, 2, UInt8(ascii: ".")), (msOfDay % 1000, 3, UInt8(ascii: "Z")),
        ]
        let text = String(unsafeUninitializedCapacity: 24) { out in
            var at = 0
            for field in fields {
                var v = field.value
                for i in stride(from: at + field.width - 1, through: at, by: -1) {
                    out[i] = UInt8(truncatingIfNeeded: 0x30 + v % 10)
                    v /= 10
                }
                out[at + field.width] = field.after
                at += field.width + 1
            }
            return at
        }
        // As `parse(bytes:)` computes it from that text: whole seconds, then the fraction.
        let instant = Double(days) * 86_400 + Double(seconds) + Double(msOfDay % 1000) / Self.powersOfTen[3]
        return (text, Date(timeIntervalSince1970: instant))
    }

    /// The instant `text` names, or nil when it is not exactly of the format above.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// 10^n for the 1–9 fraction digits.
    private static let powersOfTen: [Double] = (0...9).map { pow(10, Double($0)) }

    /// The same, over UTF-8 bytes.
    public static func parse(bytes b: UnsafeBufferPointer<UInt8>) -> Date? {
        guard b.count >= 20, b.count <= 30, b[b.count - 1] == UInt8(ascii: "Z") else { return nil }
        func digits(_ from: Int, _ n: Int) -> Int? {
            var v = 0
            for i in from..<from + n {
                let c = b[i]
                guard c >= 0x30 && c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            return v
        }
        // A byte, not a `Character`: its `asciiValue` cost more than the rest of the parse.
        func at(_ i: Int, _ c: Unicode.Scalar) -> Bool { b[i] == UInt8(truncatingIfNeeded: c.value) }
        guard let year = digits(0, 4), at(4, "-"), let month = digits(5, 2), at(7, "-"), let day = digits(8, 2),
            at(10, "T"), let hour = digits(11, 2), at(13, ":"), let minute = digits(14, 2), at(16, ":"),
            let second = digits(17, 2)
        else { return nil }
        var fraction = 0.0
        if b.count > 20 {
            // `.` and 1–9 digits before the `Z`.
            let n = b.count - 21
            guard at(19, "."), n >= 1, n <= 9, let f = digits(20, n) else { return nil }
            fraction = Double(f) / Self.powersOfTen[n]
        }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= CivilCalendar.daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = CivilCalendar.days(year: Int64(year), month: Int64(month), day: Int64(day))
        let seconds = Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second) + fraction
        return Date(timeIntervalSince1970: seconds)
    }
}
