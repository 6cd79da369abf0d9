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
