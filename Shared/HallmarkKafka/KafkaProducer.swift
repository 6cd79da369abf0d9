import Logging

/// An idempotent producer whose ``send(topic:key:value:partition:)`` returns only once the
/// broker has acknowledged the message (`acks=all`, `enable.idempotence=true`).
///
/// Thread-safe; share one per process. Call ``close(timeout:)`` on shutdown to flush.
public final class KafkaProducer: Sendable {
    private let native: RDKafkaProducer
    private let logger: Logger

    /// Creates the producer and its delivery-report thread.
    /// - Throws: ``KafkaError`` when librdkafka is too old or refuses a property.
    public init(configuration: KafkaConfiguration, logger: Logger) throws {
        self.logger = logger
        self.native = try RDKafkaProducer(configuration: configuration, logger: logger)
    }

    /// Sends one message and waits for the broker's acknowledgement.
    /// - Parameters:
    ///   - key: decides the partition (messages with one key keep their order); nil spreads.
    ///   - partition: an explicit partition, overriding the key's.
    /// - Throws: ``KafkaError`` with code `delivery` when the broker refused or the message
    ///   timed out (`message.timeout.ms`), `produce` when it could not be enqueued.
    @discardableResult
    public func send(topic: String, key: [UInt8]?, value: [UInt8], partition: Int32? = nil) async throws
        -> KafkaDeliveryReport
    {
        while true {
            do {
                return try await withCheckedThrowingContinuation { continuation in
                    let code = native.produce(topic: topic, partition: partition, key: key, value: value,
                                              continuation: continuation)
                    if code != 0 { continuation.resume(throwing: EnqueueFailure(code: code)) }
                }
            } catch let failure as EnqueueFailure {
                guard failure.code == RDKafkaProducer.queueFullCode else {
                    throw KafkaError(.produce, RDKafkaProducer.describe(failure.code), librdkafkaCode: failure.code)
                }
                // The local queue is full: wait for delivery reports to make room.
                try await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    /// Enqueues every message, in order, and returns at once; ``KafkaDeliveryGroup/wait()``
    /// returns when all are acknowledged. Messages with one key keep their order, also across
    /// groups enqueued one after the other. When the local queue is full it waits for room.
    /// - Throws: ``KafkaError`` `produce` when a message cannot be enqueued (those before it
    ///   are already on their way).
    public func enqueue(_ messages: [KafkaOutgoingMessage]) async throws -> KafkaDeliveryGroup {
        let group = KafkaDeliveryGroup()
        defer { group.seal() }
        var index = 0
        while index < messages.count {
            let code = native.produce(messages[index], into: group)
            if code == 0 {
                index += 1
            } else if code == RDKafkaProducer.queueFullCode {
                try await Task.sleep(for: .milliseconds(1))
            } else {
                throw KafkaError(.produce, RDKafkaProducer.describe(code), librdkafkaCode: code)
            }
        }
        return group
    }

    /// Sends every message and waits until all are acknowledged (see ``enqueue(_:)``).
    public func send(_ messages: [KafkaOutgoingMessage]) async throws {
        try await enqueue(messages).wait()
    }

    /// Messages enqueued but not yet acknowledged.
    public var queueLength: Int { native.queueLength }

    /// Flushes queued messages, then stops the delivery-report thread's work.
    /// - Returns: false when messages were still queued at the deadline.
    @discardableResult
    public func close(timeout: Duration = .seconds(10)) async -> Bool {
        let ms = Int32(clamping: timeout.components.seconds * 1000)
        let native = self.native
        let flushed = (try? await BlockingCall.run(name: "hallmark-kafka-flush") {
            native.flush(timeoutMilliseconds: ms)
        }) ?? false
        if !flushed { logger.warning("producer closed with messages still queued") }
        return flushed
    }
}

/// librdkafka refused to enqueue (the code is `rd_kafka_resp_err_t`'s raw value).
private struct EnqueueFailure: Error { let code: Int32 }
