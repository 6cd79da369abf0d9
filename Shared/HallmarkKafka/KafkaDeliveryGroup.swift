import Synchronization

/// A message to produce, for ``KafkaProducer/enqueue(_:)``.
public struct KafkaOutgoingMessage: Sendable {
    public var topic: String
    public var key: [UInt8]?
    public var value: [UInt8]
    /// An explicit partition, overriding the key's.
    public var partition: Int32?
    /// Record headers, sent before any the producer adds (``KafkaProducer/HeaderStamp``).
    public var headers: [KafkaHeader]

    public init(topic: String, key: [UInt8]?, value: [UInt8], partition: Int32? = nil, headers: [KafkaHeader] = []) {
        self.topic = topic
        self.key = key
        self.value = value
        self.partition = partition
        self.headers = headers
    }
}

/// The acknowledgements of a group of enqueued messages, awaited together: one wake-up for
/// the whole group instead of one per message.
public final class KafkaDeliveryGroup: Sendable {
    private struct State {
        var pending = 0
        var sealed = false
        var failure: KafkaError?
        var waiters: [CheckedContinuation<Void, any Error>] = []
        var isDone: Bool { sealed && pending == 0 }
    }
    private let state = Mutex(State())

    init() {}

    /// Waits until every message of the group is acknowledged.
    /// - Throws: the first delivery failure (``KafkaError`` code `delivery`), after every
    ///   message has its report.
    public func wait() async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            let ready = state.withLock { s -> Result<Void, any Error>? in
                guard s.isDone else { s.waiters.append(waiter); return nil }
                return s.failure.map { .failure($0) } ?? .success(())
            }
            if let ready { waiter.resume(with: ready) }
        }
    }

    /// One more message was handed to librdkafka.
    func added() { state.withLock { $0.pending += 1 } }

    /// One message has its delivery report (nil error: acknowledged).
    func completed(_ error: KafkaError?) {
        finish { s in
            s.pending -= 1; if s.failure == nil { s.failure = error }
        }
    }

    /// No more messages will be added.
    func seal() { finish { $0.sealed = true } }

    private func finish(_ update: (inout State) -> Void) {
        let (waiters, result) = state.withLock { s -> ([CheckedContinuation<Void, any Error>], Result<Void, any Error>) in
            update(&s)
            guard s.isDone else { return ([], .success(())) }
            defer { s.waiters = [] }
            return (s.waiters, s.failure.map { .failure($0) } ?? .success(()))
        }
        waiters.forEach { $0.resume(with: result) }
    }
}
