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
        var waiters: [@Sendable (Result<Void, any Error>) -> Void] = []
        var isDone: Bool { sealed && pending == 0 }
        var result: Result<Void, any Error> { failure.map { .failure($0) } ?? .success(()) }
    }
    private let state = Mutex(State())

    init() {}

    /// Waits until every message of the group is acknowledged.
    /// - Throws: the first delivery failure (``KafkaError`` code `delivery`), after every
    ///   message has its report.
    public func wait() async throws {
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            whenDone { waiter.resume(with: $0) }
        }
    }

    /// Calls `done` once every message of the group is acknowledged (or the first failure,
    /// after every message has its report): at once when they are, else from the thread of
    /// the last delivery report. For a caller that waits without a task of its own.
    public func whenDone(_ done: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let ready = state.withLock { s -> Result<Void, any Error>? in
            guard s.isDone else {
                s.waiters.append(done)
                return nil
            }
            return s.result
        }
        if let ready { done(ready) }
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
        let (waiters, result) = state.withLock { s -> ([@Sendable (Result<Void, any Error>) -> Void], Result<Void, any Error>) in
            update(&s)
            guard s.isDone else { return ([], .success(())) }
            defer { s.waiters = [] }
            return (s.waiters, s.result)
        }
        waiters.forEach { $0(result) }
    }
}
