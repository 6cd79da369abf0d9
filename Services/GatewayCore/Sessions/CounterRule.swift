/// E2EE-1's receiving rule (DESIGN §1) over one batch: counters start at 0 and must strictly
/// increase; a counter not above the last accepted one is a replay, and one 1000 or more
/// above it is a jump. Applied message by message in arrival order (Kafka key order per
/// session), so a batch decides exactly as the messages would one at a time.
enum CounterRule {
    /// How far a counter may run ahead of the last accepted one.
    static let maximumJump: Int64 = 1000

    /// The verdicts for `items` (in arrival order) given each session's last accepted counter
    /// (−1 when none; absent: no live session), and each session's last accepted counter after
    /// them.
    static func apply(_ items: [(sessionID: String, counter: UInt64)], from start: [String: Int64])
        -> (verdicts: [SessionStore.Verdict], last: [String: Int64])
    {
        var last = start
        let verdicts = items.map { item -> SessionStore.Verdict in
            guard let previous = last[item.sessionID] else { return .unknownSession }
            // Counters over Int64.max never get here (the processor refuses them as malformed).
            let counter = Int64(clamping: item.counter)
            if counter <= previous { return .replay }
            if counter - previous >= maximumJump { return .counterJump }
            last[item.sessionID] = counter
            return .accept
        }
        return (verdicts, last)
    }
}
