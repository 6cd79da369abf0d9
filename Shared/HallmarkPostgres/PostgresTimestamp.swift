import Foundation
import HallmarkCore

/// Converts between `Date` and PostgreSQL's ISO text form of `timestamptz`/`timestamp`/`date`
/// (`DateStyle=ISO`, which connections set), without `DateFormatter` (slow and locale-bound).
enum PostgresTimestamp {
    private static let microsPerDay: Int64 = 86_400_000_000

    /// `2024-05-06 07:08:09.123456+00`, rounded to whole microseconds.
    static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite else { return seconds < 0 ? "-infinity" : "infinity" }
        let micros = Int64((seconds * 1_000_000).rounded())
        let (days, timeOfDay) = CivilCalendar.floorDivide(micros, microsPerDay)
        let (year, month, day) = CivilCalendar.date(days: days)
        let pad = CivilCalendar.pad
        let secs = timeOfDay / 1_000_000
        let fraction = timeOfDay % 1_000_000
        var text = pad(year <= 0 ? 1 - year : year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        text += " " + pad(secs / 3600, 2) + ":" + pad(secs / 60 % 60, 2) + ":" + pad(secs % 60, 2)
        text += "." + pad(fraction, 6) + "+00"
        return year <= 0 ? text + " BC" : text
    }

    /// Parses the server's output; a value without an offset (`timestamp`, `date`) is UTC.
    static func parse(_ text: String) -> Date? {
        if text == "infinity" { return Date(timeIntervalSince1970: .infinity) }
        if text == "-infinity" { return Date(timeIntervalSince1970: -.infinity) }
        var scanner = ByteScanner(Array(text.utf8))
        guard var year = scanner.number(), year > 0, scanner.skip("-"),
            let month = scanner.number(), (1...12).contains(month), scanner.skip("-"),
            let day = scanner.number(), (1...31).contains(day)
        else { return nil }
        var micros: Int64 = 0
        if scanner.skip(" ") || scanner.skip("T") {
            guard let h = scanner.number(), scanner.skip(":"), let m = scanner.number(),
                scanner.skip(":"), let s = scanner.number()
            else { return nil }
            micros = (h * 3600 + m * 60 + s) * 1_000_000
            if scanner.skip(".") {
                guard let (value, digits) = scanner.digits(), digits <= 6 else { return nil }
                var scaled = value
                for _ in digits..<6 { scaled *= 10 }
                micros += scaled
            }
            if let sign = scanner.peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                scanner.advance()
                var offset: Int64 = 0
                guard let oh = scanner.number() else { return nil }
                offset = oh * 3600
                if scanner.skip(":") { guard let om = scanner.number() else { return nil }; offset += om * 60 }
                if scanner.skip(":") { guard let os = scanner.number() else { return nil }; offset += os }
                micros -= (sign == UInt8(ascii: "+") ? offset : -offset) * 1_000_000
            }
        }
        if scanner.skip(" BC") { year = 1 - year }
        guard scanner.atEnd else { return nil }
        let total = CivilCalendar.days(year: year, month: month, day: day) * microsPerDay + micros
        return Date(timeIntervalSince1970: Double(total) / 1_000_000)
    }
}

/// A minimal cursor over ASCII bytes for the timestamp parser.
private struct ByteScanner {
    let bytes: [UInt8]
    var index = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }
    func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }
    mutating func advance() { index += 1 }

    mutating func skip(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for i in 0..<count where bytes[index + i] != literal.utf8Start[i] { return false }
        index += count
        return true
    }

    mutating func digits() -> (Int64, Int)? {
        var value: Int64 = 0, count = 0
        while let b = peek(), b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9"), count < 18 {
            value = value * 10 + Int64(b - UInt8(ascii: "0"))
            count += 1
            advance()
        }
        return count == 0 ? nil : (value, count)
    }

    mutating func number() -> Int64? { digits()?.0 }
}
