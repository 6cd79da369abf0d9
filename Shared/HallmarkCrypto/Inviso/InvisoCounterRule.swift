/// The E2EE-1 receive-counter rule as a pure function. Counters per direction start at 0
/// and must strictly increase; a counter not above the last accepted one is a replay; a
/// jump of `maximumJump` (1000) or more is rejected. Before any message the last accepted
/// counter is taken as −1, so the first message may carry 0...998.
public enum InvisoCounterRule {
    /// The decision for one received counter.
    public enum Decision: String, Sendable, Hashable {
        /// Accept and store the counter as the last accepted one.
        case accept
        /// Not above the last accepted counter.
        case replay
        /// Too far ahead.
        case gapTooLarge = "gap_too_large"
    }

    /// Smallest rejected jump.
    public static let maximumJump: UInt64 = 1000

    /// Decides on `received` given the last accepted counter (nil before the first message).
    public static func check(lastAccepted: UInt64?, received: UInt64) -> Decision {
        guard let last = lastAccepted else {
            // Jump from the virtual −1: received + 1 >= 1000.
            return received >= maximumJump - 1 ? .gapTooLarge : .accept
        }
        if received <= last { return .replay }
        return received - last >= maximumJump ? .gapTooLarge : .accept
    }
}
