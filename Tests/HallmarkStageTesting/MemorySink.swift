import HallmarkKafka
import HallmarkRuntime

/// A ``MemoryBroker``'s producer: appends in order, or fails as the broker was told to.
public struct MemorySink: StageSink {
    let broker: MemoryBroker
    public let maxMessageBytes: Int

    /// A failure a send gets (its deliveries too).
    public struct Delivery: StageDelivery {
        let failure: KafkaError?
        public func wait() async throws { if let failure { throw failure } }
    }

    public func send(_ messages: [KafkaOutgoingMessage]) async throws {
        try await enqueue(messages).wait()
    }

    /// All or nothing: a failing send appends none of its messages, as a retried batch whose
    /// deliveries all failed would.
    public func enqueue(_ messages: [KafkaOutgoingMessage]) async throws -> Delivery {
        let (failure, wake) = broker.state.withLock { s -> (KafkaError?, @Sendable () -> Void) in
            if let big = messages.first(where: { !fits(key: $0.key, value: $0.value) || s.refuse?($0) == true }) {
                return (KafkaError(.oversized, "\((big.key?.count ?? 0) + big.value.count) bytes refused"), {})
            }
            if s.transientFailures > 0 {
                s.transientFailures -= 1
                return (KafkaError(.delivery, "a delivery failed (asked to)"), {})
            }
            for m in messages { _ = s.append(m, broker.defaultPartitions) }
            return (nil, s.wake())
        }
        wake()
        return Delivery(failure: failure)
    }
}
