import HallmarkCore
import Synchronization

/// When this process last produced, on the uptime clock: a resting consumer of the same
/// process wakes, since what it reads is often the answer to what was just sent (the edge's
/// answers, the aggregator's token results).
enum ProduceClock {
    static let last = Atomic<UInt64>(0)

    static func produced() { last.store(Uptime.now(), ordering: .relaxed) }
}
