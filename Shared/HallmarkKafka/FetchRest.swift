/// When a consumer with nothing to read stops fetching for a while.
///
/// A consumer fetches every `fetch.wait.max.ms` whether or not anything arrives, and some
/// brokers (Tansu) hold an empty fetch for that whole time even when data comes meanwhile, so
/// a long wait would add to every hop. An idle consumer of such a broker costs the broker a
/// fetch every 10 ms. So once nothing has arrived for ``Policy/idleAfter``, the consumer rests:
/// it pauses its partitions, notes their end offsets, and at growing intervals, up to
/// ``Policy/longestRest``, asks the broker for them again (one `ListOffsets` request, which a
/// broker answers at once); an end that moved wakes it. So does anything else that suggests
/// traffic: a message, a partition the reader resumes, a new assignment, or this process
/// producing (an answer usually follows a question; ``ProduceClock``).
///
/// Checking offsets rather than resuming for a fetch matters: librdkafka drops the answer of a
/// fetch that was out when its partition was paused again, and a loaded broker's fetch can take
/// longer than any short window, so a consumer that peeked by fetching could miss a burst for
/// as long as the broker stayed slow.
///
/// Pure logic on uptime nanoseconds: the consumer's poll thread feeds it the time and the
/// checks' answers, and performs the returned ``Action``s.
struct FetchRest: Sendable {
    /// When to rest, and how long.
    struct Policy: Sendable, Equatable {
        /// Quiet time before a rest, in nanoseconds; 0 never rests.
        var idleAfter: UInt64
        /// The first interval between checks; each check that finds nothing doubles it, up to
        /// ``longestRest``.
        var shortestRest: UInt64
        /// The longest interval between checks: the most a message arriving at a resting
        /// consumer waits (beside the check's own round trip).
        var longestRest: UInt64

        /// From the consumer's settings: checks start at twice the fetch wait (at least 10 ms).
        init(idleAfterMilliseconds: Int, longestRestMilliseconds: Int, fetchWaitMilliseconds: Int) {
            let ms: UInt64 = 1_000_000
            idleAfter = UInt64(max(0, idleAfterMilliseconds)) * ms
            longestRest = UInt64(max(1, longestRestMilliseconds)) * ms
            shortestRest = min(longestRest, UInt64(max(10, 2 * fetchWaitMilliseconds)) * ms)
        }

        /// A consumer's, from its settings (`HALLMARK_KAFKA_IDLE_AFTER_MS`,
        /// `HALLMARK_KAFKA_IDLE_FETCH_MS`, `HALLMARK_KAFKA_FETCH_WAIT_MS`).
        init(_ configuration: KafkaConfiguration) {
            self.init(
                idleAfterMilliseconds: configuration.idleAfterMilliseconds,
                longestRestMilliseconds: configuration.idleFetchIntervalMilliseconds,
                fetchWaitMilliseconds: configuration.fetchWaitMaxMilliseconds)
        }

        /// Never rests.
        static let never = Policy(idleAfterMilliseconds: 0, longestRestMilliseconds: 1, fetchWaitMilliseconds: 0)
    }

    /// What the consumer does now to its partitions (those its reader has not paused itself).
    enum Action: Equatable {
        /// Pause them and note their end offsets.
        case pause
        /// Ask their end offsets again; report with ``checked(moved:at:)``.
        case check
        /// Resume them.
        case resume
    }

    enum Phase: Equatable {
        case awake
        /// Paused; the next check is due at `until`, and `length` is this interval's.
        case resting(until: UInt64, length: UInt64)
    }

    let policy: Policy
    private(set) var phase = Phase.awake
    /// The last sign of traffic.
    private(set) var lastActivity: UInt64
    /// Until when the consumer stays awake for messages a check found (a fetch after a resume
    /// can take longer than the quiet time; pausing again would drop it): until one arrives,
    /// or ten quiet times at most.
    private(set) var awaitingUntil: UInt64 = 0

    init(policy: Policy, now: UInt64) {
        self.policy = policy
        self.lastActivity = now
    }

    /// Whether the partitions are paused for a rest.
    var isResting: Bool { phase != .awake }

    /// A sign of traffic at `now`: a resting consumer wakes.
    mutating func active(at now: UInt64) -> Action? {
        if now > lastActivity { lastActivity = now }
        guard isResting else { return nil }
        phase = .awake
        return .resume
    }

    /// A message arrived: the consumer is awake, and no longer waits for one.
    mutating func received(at now: UInt64) -> Action? {
        awaitingUntil = 0
        return active(at: now)
    }

    /// Moves on once the time comes; returns what to do now, if anything.
    mutating func tick(at now: UInt64) -> Action? {
        switch phase {
        case .awake:
            guard policy.idleAfter > 0, now >= lastActivity &+ policy.idleAfter, now >= awaitingUntil else { return nil }
            phase = .resting(until: now + policy.shortestRest, length: policy.shortestRest)
            return .pause
        case .resting(let until, _):
            return now >= until ? .check : nil
        }
    }

    /// A check's answer: an end offset moved (or the check failed, which is treated alike, so
    /// that a broker that cannot answer never leaves a consumer asleep) wakes the consumer until
    /// a message arrives; otherwise the next check waits twice as long, up to the longest rest.
    mutating func checked(moved: Bool, at now: UInt64) -> Action? {
        guard case .resting(_, let length) = phase else { return nil }
        if moved {
            awaitingUntil = now &+ 10 * policy.idleAfter
            return active(at: now)
        }
        let next = min(policy.longestRest, length * 2)
        phase = .resting(until: now + next, length: next)
        return nil
    }

    /// How long a poll thread may block at `now` before ``tick(at:)`` has something to do, in
    /// milliseconds (rounded up), and at most `limit`.
    func millisecondsToDeadline(from now: UInt64, atMost limit: Int32) -> Int32 {
        guard let deadline else { return limit }
        let left = deadline > now ? (deadline - now + 999_999) / 1_000_000 : 0
        return Int32(min(UInt64(limit), left))
    }

    /// When ``tick(at:)`` next has something to do; nil when never.
    var deadline: UInt64? {
        switch phase {
        case .awake: policy.idleAfter > 0 ? max(lastActivity &+ policy.idleAfter, awaitingUntil) : nil
        case .resting(let until, _): until
        }
    }
}
