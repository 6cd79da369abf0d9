import Foundation
import HallmarkCore

/// Times as Python's `datetime.fromisoformat` reads what the reference's clients write:
/// `YYYY-MM-DD`, then optionally `T` or a space and `HH:MM`, `:SS` and a fraction of 1–9
/// digits, then optionally `Z` or an offset `±HH:MM` (or `±HHMM`). A time without an offset
/// is UTC: the reference editing plugin writes `datetime.utcnow().isoformat()`.
enum IsoTime {
    /// The instant `text` names, or nil when it is not such a time or not a real date.
    static func date(_ text: String) -> Date? {
        let b = Array(text.utf8)
        var i = 0
        func digits(_ n: Int) -> Int64? {
            guard i + n <= b.count else { return nil }
            var v: Int64 = 0
            for c in b[i..<i + n] {
                guard c >= 0x30 && c <= 0x39 else { return nil }
                v = v * 10 + Int64(c - 0x30)
            }
            i += n
            return v
        }
        func take(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), take(0x2D), let month = digits(2), take(0x2D), let day = digits(2),
            (1...12).contains(month), year >= 1, day >= 1, day <= Int64(CivilCalendar.daysIn(month: Int(month), year: Int(year)))
        else { return nil }
        var seconds = CivilCalendar.days(year: year, month: month, day: day) * 86_400
        var fraction = 0.0
        if i < b.count, b[i] == 0x54 || b[i] == 0x20 {
            i += 1
            guard let hour = digits(2), take(0x3A), let minute = digits(2), hour < 24, minute < 60 else { return nil }
            seconds += hour * 3600 + minute * 60
            if take(0x3A) {
                guard let second = digits(2), second < 60 else { return nil }
                seconds += second
                if take(0x2E) {
                    let start = i
                    while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
                    guard (1...9).contains(i - start), let f = Double("0." + String(decoding: b[start..<i], as: UTF8.self))
                    else { return nil }
                    fraction = f
                }
            }
            if take(0x5A) || take(0x7A) {
                // UTC.
            } else if i < b.count, b[i] == 0x2B || b[i] == 0x2D {
                let sign: Int64 = b[i] == 0x2B ? 1 : -1
                i += 1
                guard let oh = digits(2), oh < 24 else { return nil }
                _ = take(0x3A)
                guard let om = digits(2), om < 60 else { return nil }
                seconds -= sign * (oh * 3600 + om * 60)
            }
        }
        guard i == b.count else { return nil }
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// `date` as a Hallmark timestamp, when its year can be written (0001–9999).
    static func timestamp(_ date: Date) -> Timestamp? {
        let seconds = date.timeIntervalSince1970
        // 0001-01-01 and 10000-01-01, Unix seconds.
        guard seconds >= -62_135_596_800, seconds < 253_402_300_800 else { return nil }
        return Timestamp(date)
    }
}
