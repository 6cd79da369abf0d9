import Logging

/// An idempotent producer whose ``send(topic:key:value:partition:)`` returns only once the
/// broker has acknowledged the message (`acks=all`, `enable.idempotence=true`).
///
/// Thread-safe; share one per process. Call ``close(timeout:)`` on shutdown to flush.
public final class KafkaProducer: Sendable {
    private let native: RDKafkaProducer
    private let logger: Logger
    /// The largest key plus value this producer sends (``KafkaConfiguration/maxMessageBytes``).
    public let maxMessageBytes: Int
    private let stamp: HeaderStamp?

    /// Headers the producer adds to every message it sends, made from its topic and value
    /// (a service's CloudEvents attributes, read from the payload it describes).
    public typealias HeaderStamp = @Sendable (_ topic: String, _ value: [UInt8]) -> [KafkaHeader]

    /// Creates the producer and its delivery-report thread.
    /// - Parameter stamp: headers for every message, after the message's own.
    /// - Throws: ``KafkaError`` when librdkafka is too old or refuses a property.
    public init(configuration: KafkaConfiguration, logger: Logger, stamp: HeaderStamp? = nil) throws {
        self.logger = logger
        self.maxMessageBytes = configuration.maxMessageBytes
        self.stamp = stamp
        self.native = try RDKafkaProducer(configuration: configuration, logger: logger)
    }

    /// Sends one message and waits for the broker's acknowledgement.
    /// - Parameters:
    ///   - key: decides the partition (messages with one key keep their order); nil spreads.
    ///   - partition: an explicit partition, overriding the key's.
    /// - Throws: ``KafkaError`` with code `delivery` when the broker refused or the message
    ///   timed out (`message.timeout.ms`), `produce` when it could not be enqueued, `oversized`
    ///   when it is larger than ``maxMessageBytes`` or the broker's limit (never worth a retry).
    @discardableResult
    public func send(
        topic: String, key: [UInt8]?, value: [UInt8], partition: Int32? = nil
    ) async throws
        -> KafkaDeliveryReport
    {
        try checkSize(key: key, value: value)
        ProduceClock.produced()
        let headers = stamp?(topic, value) ?? []
        while true {
            do {
                return try await withCheckedThrowingContinuation { continuation in
                    let code = native.produce(
                        topic: topic, partition: partition, key: key, value: value, headers: headers,
                        continuation: continuation)
                    if code != 0 { continuation.resume(throwing: EnqueueFailure(code: code)) }
                }
            } catch let failure as EnqueueFailure {
                guard failure.code == RDKafkaProducer.queueFullCode else {
                    throw KafkaError.produceFailure(failure.code, RDKafkaProducer.describe(failure.code), code: .produce)
                }
                // The local queue is full: wait for delivery reports to make room.
                try await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    /// Enqueues every message, in order, and returns at once; ``KafkaDeliveryGroup/wait()``
    /// returns when all are acknowledged. Messages with one key keep their order, also across
    /// groups enqueued one after the other. When the local queue is full it waits for room.
    /// - Throws: ``KafkaError`` `oversized` before anything is enqueued when a message is
    ///   larger than ``maxMessageBytes``; `produce` when a message cannot be enqueued (those
    ///   before it are already on their way).
    public func enqueue(_ messages: [KafkaOutgoingMessage]) async throws -> KafkaDeliveryGroup {
        let group = try deliveryGroup(for: messages)
        defer { group.seal() }
        try await produceAll(messages, from: 0, into: group)
        return group
    }

    /// Enqueues every message as ``enqueue(_:)`` does, and calls `done` once all are
    /// acknowledged, or with the first error, from whichever thread settles it: for a caller
    /// that waits without a task of its own. A full local queue alone takes a task, which
    /// waits for room.
    public func enqueue(_ messages: [KafkaOutgoingMessage], then done: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        do {
            let group = try deliveryGroup(for: messages)
            var index = 0
            if try produce(messages, from: &index, into: group) {
                group.seal()
                return group.whenDone(done)
            }
            Task { [index] in
                defer { group.seal() }
                do { try await produceAll(messages, from: index, into: group) } catch { return done(.failure(error)) }
                group.whenDone(done)
            }
        } catch {
            done(.failure(error))
        }
    }

    /// The delivery group of `messages`, once each is found to fit.
    private func deliveryGroup(for messages: [KafkaOutgoingMessage]) throws(KafkaError) -> KafkaDeliveryGroup {
        for m in messages { try checkSize(key: m.key, value: m.value) }
        // What this process sends is often answered to it: its resting consumers wake.
        ProduceClock.produced()
        return KafkaDeliveryGroup()
    }

    /// Hands `messages` from `start` on to librdkafka, waiting for room while the local queue
    /// is full.
    private func produceAll(_ messages: [KafkaOutgoingMessage], from start: Int, into group: KafkaDeliveryGroup) async throws {
        var index = start
        while try !produce(messages, from: &index, into: group) { try await Task.sleep(for: .milliseconds(1)) }
    }

    /// Hands `messages` from `index` on to librdkafka, in order, moving `index` past each one
    /// taken; false when the local queue is full at `index` (wait for room and call again).
    private func produce(
        _ messages: [KafkaOutgoingMessage], from index: inout Int, into group: KafkaDeliveryGroup
    ) throws(KafkaError) -> Bool {
        while index < messages.count {
            let message = messages[index]
            let headers = message.headers + (stamp?(message.topic, message.value) ?? [])
            let code = native.produce(message, headers: headers, into: group)
            if code == RDKafkaProducer.queueFullCode { return false }
            guard code == 0 else { throw KafkaError.produceFailure(code, RDKafkaProducer.describe(code), code: .produce) }
            index += 1
        }
        return true
    }

    /// Sends every message and waits until all are acknowledged (see ``enqueue(_:)``).
    public func send(_ messages: [KafkaOutgoingMessage]) async throws {
        try await enqueue(messages).wait()
    }

    /// Whether a message of this size may be produced.
    public func fits(key: [UInt8]?, value: [UInt8]) -> Bool { (key?.count ?? 0) + value.count <= maxMessageBytes }

    private func checkSize(key: [UInt8]?, value: [UInt8]) throws(KafkaError) {
        guard fits(key: key, value: value) else {
            throw KafkaError(
                .oversized, "a message of \((key?.count ?? 0) + value.count) bytes exceeds the limit of \(maxMessageBytes)")
        }
    }

    /// Messages enqueued but not yet acknowledged.
    public var queueLength: Int { native.queueLength }

    /// Flushes queued messages, then stops the delivery-report thread's work.
    /// - Returns: false when messages were still queued at the deadline.
    @discardableResult
    public func close(timeout: Duration = .seconds(10)) async -> Bool {
        let ms = Int32(clamping: timeout.components.seconds * 1000)
        let native = self.native
        let flushed =
            (try? await BlockingCall.run(name: "hallmark-kafka-flush") {
                native.flush(timeoutMilliseconds: ms)
            }) ?? false
        if !flushed { logger.warning("producer closed with messages still queued") }
        return flushed
    }
}

/// librdkafka refused to enqueue (the code is `rd_kafka_resp_err_t`'s raw value).
private struct EnqueueFailure: Error { let code: Int32 }
