/// E2EE-1's receiving rule (DESIGN §1) over one batch: counters start at 0 and must strictly
/// increase; a counter not above the last accepted one is a replay, and one 1000 or more
/// above it is a jump. Applied message by message in arrival order (Kafka key order per
/// session), so a batch decides exactly as the messages would one at a time.
enum CounterRule {
    /// How far a counter may run ahead of the last accepted one.
    static let maximumJump: Int64 = 1000

    /// A live session's row generation and last accepted counter (−1 when none).
    struct Position: Sendable, Equatable {
        var generation: Int64
        var counter: Int64
    }

    /// The verdicts for `items` (in arrival order, each with the generation of the key that
    /// opened it) given each live session's position (absent: no live session), and each
    /// session's position after them. A message opened under another generation's key is
    /// `staleKey`: it was sealed for a session this id no longer names.
    static func apply(
        _ items: [(sessionID: String, generation: Int64, counter: UInt64)], from start: [String: Position]
    )
        -> (verdicts: [SessionStore.Verdict], last: [String: Position])
    {
        var last = start
        let verdicts = items.map { item -> SessionStore.Verdict in
            guard let previous = last[item.sessionID] else { return .unknownSession }
            guard previous.generation == item.generation else { return .staleKey }
            // Counters over Int64.max never get here (the processor refuses them as malformed).
            let counter = Int64(clamping: item.counter)
            if counter <= previous.counter { return .replay }
            if counter - previous.counter >= maximumJump { return .counterJump }
            last[item.sessionID]?.counter = counter
            return .accept
        }
        return (verdicts, last)
    }
}
