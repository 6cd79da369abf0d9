import Foundation
import HallmarkMessages

extension MetricsBoard {
    /// The screen: a line per instance, its rejections by reason, the latest security events.
    /// Every line fits `width` columns (80 by default).
    package func render(now: Date, source: String, width: Int = 80) -> [String] {
        let rows = rows(now: now)
        let services = Set(rows.map(\.service)).count
        var lines: [String] = []
        let clock = Self.clock(now)
        let title = "hallmark top · \(Self.count(rows.count, "instance")) of \(Self.count(services, "service")) · \(source)"
        lines.append(Self.fit(title, width - clock.count - 1) + " " + clock)
        lines.append("")
        lines.append(Self.columns(["SERVICE", "INSTANCE", "IN/S", "OUT/S", "P50ms", "P99ms", "LAG", "TOTAL", "REJ"]))
        for row in rows {
            lines.append(
                Self.columns([
                    row.service, row.instance + (row.stale ? " (stale)" : ""), Self.number(row.inPerSecond),
                    Self.number(row.outPerSecond), Self.number(row.p50Milliseconds), Self.number(row.p99Milliseconds),
                    Self.number(row.lag), Self.number(row.processed), Self.number(row.rejected),
                ]))
        }
        if rows.isEmpty { lines.append("  waiting for snapshots on the metrics topic…") }
        lines.append("")
        lines.append("REJECTIONS BY REASON (since each instance started)")
        let rejecting = rows.filter { !$0.rejections.isEmpty }
        for row in rejecting {
            let reasons = row.rejections.map { "\($0.reason) \(Self.number($0.count))" }.joined(separator: " · ")
            lines.append("  " + Self.pad(row.instance, 16) + " " + reasons)
        }
        if rejecting.isEmpty { lines.append("  none") }
        lines.append("")
        lines.append("SECURITY EVENTS (latest \(eventLimit))")
        for event in events.reversed() {
            lines.append("  " + Self.describe(event))
        }
        if events.isEmpty { lines.append("  none") }
        lines.append("")
        lines.append("q or Ctrl-C quits · rates from the last two snapshots of each instance")
        return lines.map { Self.fit($0, width) }
    }

    /// SERVICE 10, INSTANCE 16, then right-aligned numbers: 78 columns.
    static func columns(_ cells: [String]) -> String {
        let widths = [10, 16, 7, 7, 6, 6, 6, 7, 5]
        return zip(cells, widths).enumerated().map { index, pair in
            index < 2 ? pad(pair.0, pair.1) : String(repeating: " ", count: max(0, pair.1 - pair.0.count)) + fit(pair.0, pair.1)
        }.joined(separator: " ")
    }

    /// A number in at most 6 characters: 0.42, 12.3, 1234, 12.3k, 4.5M; "-" when unknown.
    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "-" }
        let magnitude = abs(value)
        switch magnitude {
        case 0: return "0"
        case ..<10_000 where value == value.rounded(): return String(format: "%.0f", value)
        case ..<10: return String(format: "%.2f", value)
        case ..<100: return String(format: "%.1f", value)
        case ..<10_000: return String(format: "%.0f", value)
        case ..<1_000_000: return String(format: "%.1fk", value / 1000)
        default: return String(format: "%.1fM", value / 1_000_000)
        }
    }

    static func describe(_ event: Message<SecurityEvent>) -> String {
        var detail: [String] = []
        if let reason = event.reason { detail.append(reason) }
        if let partner = event.partnerID { detail.append("partner \(partner)") }
        if let device = event.deviceSerial { detail.append("device \(device)") }
        if let session = event.sessionID { detail.append("session \(session)") }
        if let table = event.tableId { detail.append("table \(table)") }
        if let count = event.count { detail.append("count \(count)") }
        let time = String(event.producedAt.text.dropFirst(11).prefix(8))
        return [time, pad(event.service, 9), pad(event.severity.rawValue, 8), event.event.rawValue].joined(separator: " ")
            + (detail.isEmpty ? "" : " · " + detail.joined(separator: " · "))
    }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    static func clock(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970) % 86_400
        return String(format: "%02d:%02d:%02dZ", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }

    static func pad(_ text: String, _ width: Int) -> String {
        let cut = fit(text, width)
        return cut + String(repeating: " ", count: max(0, width - cut.count))
    }

    /// At most `width` characters; a cut line ends in "…".
    static func fit(_ text: String, _ width: Int) -> String {
        text.count <= width ? text : String(text.prefix(max(0, width - 1))) + "…"
    }
}
