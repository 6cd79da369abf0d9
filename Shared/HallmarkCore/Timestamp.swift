import Foundation

/// Hallmark's one timestamp format and its one parser: RFC 3339 in UTC, as every message's
/// `produced_at` and SIGN-1's `SmileID-Request-Timestamp` carry it, e.g.
/// `2025-01-01T00:00:00.000Z`.
///
/// Parsing is strict: `YYYY-MM-DDTHH:MM:SS` with an optional fraction of 1–9 digits and a
/// final `Z`; years 0001–9999; real calendar dates (no 2025-02-30); no offsets (`+05:30`),
/// no lower-case `t`/`z`, no leap second, nothing before or after. The JSON Schemas say the
/// same (`$defs/timestamp`).
public enum Timestamp {
    /// The current time, formatted.
    public static func now() -> String { format(Date()) }

    /// `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ` (milliseconds, truncated).
    public static func format(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let (days, msOfDay) = millis.quotientAndRemainderFloored(dividingBy: 86_400_000)
        let (y, m, d) = civil(fromDays: days)
        let s = msOfDay / 1000
        var out = ""
        out.reserveCapacity(24)
        out += pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T"
        out += pad(s / 3600, 2) + ":" + pad(s / 60 % 60, 2) + ":" + pad(s % 60, 2) + "." + pad(msOfDay % 1000, 3) + "Z"
        return out
    }

    /// The instant `text` names, or nil when it is not exactly of the format above.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

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
        func at(_ i: Int, _ c: Character) -> Bool { b[i] == c.asciiValue! }
        guard let year = digits(0, 4), at(4, "-"), let month = digits(5, 2), at(7, "-"), let day = digits(8, 2),
              at(10, "T"), let hour = digits(11, 2), at(13, ":"), let minute = digits(14, 2), at(16, ":"),
              let second = digits(17, 2) else { return nil }
        var fraction = 0.0
        if b.count > 20 {
            // `.` and 1–9 digits before the `Z`.
            let n = b.count - 21
            guard at(19, "."), n >= 1, n <= 9, let f = digits(20, n) else { return nil }
            fraction = Double(f) / pow(10, Double(n))
        }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        let days = daysFromCivil(year, month, day)
        let seconds = Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int64 {
        let y = Int64(m <= 2 ? y0 - 1 : y0)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64(m > 2 ? m - 3 : m + 9)
        let doy = (153 * mp + 2) / 5 + Int64(d) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}

extension Int64 {
    /// Quotient and remainder rounding towards minus infinity (remainder never negative).
    fileprivate func quotientAndRemainderFloored(dividingBy d: Int64) -> (Int64, Int64) {
        let (q, r) = quotientAndRemainder(dividingBy: d)
        return r < 0 ? (q - 1, r + d) : (q, r)
    }
}
