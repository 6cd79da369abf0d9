/// A Kafka failure: a stable code, a reason safe to log, and librdkafka's error code when
/// there is one. Message payloads and keys never appear in it.
public struct KafkaError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// A produce or delivery failure: `oversized` when librdkafka says the message can never
        /// fit, else `code`.
        static func produceFailure(_ librdkafkaCode: Int32, _ reason: String, code: Code) -> KafkaError {
            KafkaError(
                RDKafkaProducer.sizeCodes.contains(librdkafkaCode) ? .oversized : code, reason,
                librdkafkaCode: librdkafkaCode)
        }

        public var description: String { rawValue }

        /// A setting is invalid (librdkafka refused it, or an environment variable is malformed).
        public static let configuration = Code("configuration")
        /// The loaded librdkafka is too old.
        public static let unsupportedLibrary = Code("unsupported_library")
        /// The client handle could not be created.
        public static let clientCreation = Code("client_creation")
        /// The broker did not acknowledge a message.
        public static let delivery = Code("delivery")
        /// A message could not be enqueued.
        public static let produce = Code("produce")
        /// Subscribing, storing or committing offsets failed.
        public static let consumer = Code("consumer")
        /// A topic administration request failed.
        public static let admin = Code("admin")
        /// The client was already shut down.
        public static let closed = Code("closed")
        /// A request did not complete in time.
        public static let timeout = Code("timeout")
        /// A message is larger than the producer's or the broker's limit: it can never be
        /// produced, so it is a permanent failure (never retried).
        public static let oversized = Code("oversized")
    }

    public let code: Code
    public let reason: String
    /// librdkafka's `rd_kafka_resp_err_t`, when the failure came from it.
    public let librdkafkaCode: Int32?

    public init(_ code: Code, _ reason: String, librdkafkaCode: Int32? = nil) {
        self.code = code
        self.reason = reason
        self.librdkafkaCode = librdkafkaCode
    }

    /// A produce or delivery failure: `oversized` when librdkafka says the message can never
    /// fit, else `code`.
    static func produceFailure(_ librdkafkaCode: Int32, _ reason: String, code: Code) -> KafkaError {
        KafkaError(
            RDKafkaProducer.sizeCodes.contains(librdkafkaCode) ? .oversized : code, reason,
            librdkafkaCode: librdkafkaCode)
    }

    public var description: String {
        if let c = librdkafkaCode { return "KafkaError(\(code): \(reason) [rdkafka \(c)])" }
        return "KafkaError(\(code): \(reason))"
    }
}
