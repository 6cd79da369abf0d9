import Foundation
import HallmarkCore
import Synchronization

/// The `Date` header's value (RFC 9110 IMF-fixdate), made once a second.
enum HTTPDate {
    private static let cache = Mutex<(second: Int64, text: String)>((-1, ""))

    /// Now, as `Sun, 06 Nov 1994 08:49:37 GMT`.
    static var now: String {
        let second = Int64(Date().timeIntervalSince1970.rounded(.down))
        return cache.withLock { c in
            if c.second != second { c = (second, format(second)) }
            return c.text
        }
    }

    static func format(_ seconds: Int64) -> String {
        let (days, s) = CivilCalendar.floorDivide(seconds, 86_400)
        let (y, m, d) = CivilCalendar.date(days: days)
        // 1 January 1970 was a Thursday.
        let weekday = Int(CivilCalendar.floorDivide(days + 4, 7).remainder)
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let p = CivilCalendar.pad
        return
            "\(names[weekday]), \(p(d, 2)) \(months[Int(m) - 1]) \(y) \(p(s / 3600, 2)):\(p(s % 3600 / 60, 2)):\(p(s % 60, 2)) GMT"
    }
}
