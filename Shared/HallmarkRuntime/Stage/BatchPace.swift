/// The shortest time between the starts of batches while a stream keeps their processor busy.
///
/// A batch's fixed cost (a transaction, a produce request, a signed checkpoint) is paid per
/// batch. Group commit alone makes batches grow only while one is at work, so a stream slower
/// than the processor (a fifth of its capacity, say) still goes one message per batch and pays
/// that cost per message. With a pace, a batch that would start less than ``interval`` after
/// the previous one waits out the rest of it and takes what arrived meanwhile: a stream is
/// processed in batches of what the interval holds. A message after a quiet spell longer than
/// the interval waits for nothing, so a lone message's latency is unchanged; a stream's grows
/// by at most the interval.
public struct BatchPace: Sendable {
    /// 0: never waits.
    public let interval: Duration
    private var lastStart: ContinuousClock.Instant?

    public init(interval: Duration) {
        self.interval = interval
    }

    /// When a batch may start if it is not to start before the pace allows; nil when it may
    /// start at `now`.
    public func due(at now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard interval > .zero, let lastStart else { return nil }
        let due = lastStart + interval
        return now < due ? due : nil
    }

    /// A batch started at `now`.
    public mutating func started(at now: ContinuousClock.Instant) { lastStart = now }

    /// The next batch may start at once (the last was full: more waits).
    public mutating func reset() { lastStart = nil }
}
