import Logging
import Synchronization
import rdkafka

/// State shared with librdkafka's callbacks through the client's opaque pointer.
final class RDKafkaContext: Sendable {
    let logger: Logger
    let rebalanceListener: (@Sendable (KafkaRebalanceEvent) -> Void)?
    /// Bumped on every assignment change; only the poll thread writes it.
    let generation = Atomic<UInt64>(0)

    init(logger: Logger, rebalanceListener: (@Sendable (KafkaRebalanceEvent) -> Void)? = nil) {
        self.logger = logger
        self.rebalanceListener = rebalanceListener
    }
}

/// Owns one `rd_kafka_t`. Callbacks find the ``RDKafkaContext`` through `rd_kafka_opaque`.
final class RDKafkaClient: @unchecked Sendable {
    enum Role { case producer, consumer }

    let handle: OpaquePointer
    let context: RDKafkaContext
    private let contextPointer: UnsafeMutableRawPointer

    /// Builds the configuration, installs callbacks and creates the handle.
    init(
        role: Role, properties: [String: String], context: RDKafkaContext,
        installCallbacks: (OpaquePointer) -> Void = { _ in }
    ) throws {
        try KafkaLibrary.requireSupportedVersion()
        guard let conf = rd_kafka_conf_new() else {
            throw KafkaError(.clientCreation, "rd_kafka_conf_new failed")
        }
        var errstr = [CChar](repeating: 0, count: 512)
        for (name, value) in properties.sorted(by: { $0.key < $1.key }) {
            if rd_kafka_conf_set(conf, name, value, &errstr, errstr.count) != RD_KAFKA_CONF_OK {
                rd_kafka_conf_destroy(conf)
                // The value is left out: it may be a credential (sasl.password).
                throw KafkaError(.configuration, "property \(name): \(RDKafkaClient.string(errstr))")
            }
        }
        let pointer = Unmanaged.passRetained(context).toOpaque()
        rd_kafka_conf_set_opaque(conf, pointer)
        rd_kafka_conf_set_log_cb(conf, rdkafkaLog)
        installCallbacks(conf)
        let type = role == .producer ? RD_KAFKA_PRODUCER : RD_KAFKA_CONSUMER
        // On success rd_kafka_new takes ownership of conf.
        guard let rk = rd_kafka_new(type, conf, &errstr, errstr.count) else {
            rd_kafka_conf_destroy(conf)
            Unmanaged<RDKafkaContext>.fromOpaque(pointer).release()
            throw KafkaError(.clientCreation, RDKafkaClient.string(errstr))
        }
        self.handle = rk
        self.context = context
        self.contextPointer = pointer
    }

    deinit {
        rd_kafka_destroy(handle)
        Unmanaged<RDKafkaContext>.fromOpaque(contextPointer).release()
    }

    /// The context behind a handle, for use inside callbacks.
    static func context(of rk: OpaquePointer?) -> RDKafkaContext? {
        guard let rk, let raw = rd_kafka_opaque(rk) else { return nil }
        return Unmanaged<RDKafkaContext>.fromOpaque(raw).takeUnretainedValue()
    }

    /// The text in a NUL-terminated error buffer.
    static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// librdkafka's name for an error code.
    static func describe(_ err: rd_kafka_resp_err_t) -> String {
        String(cString: rd_kafka_err2str(err))
    }
}

/// Routes librdkafka's own log lines (syslog levels) into swift-log.
private func rdkafkaLog(
    _ rk: OpaquePointer?, _ level: Int32, _ facility: UnsafePointer<CChar>?,
    _ message: UnsafePointer<CChar>?
) {
    guard let context = RDKafkaClient.context(of: rk) else { return }
    let text = message.map { String(cString: $0) } ?? ""
    let fac = facility.map { String(cString: $0) } ?? ""
    let swiftLevel: Logger.Level
    switch level {
    case ...3: swiftLevel = .error
    case 4: swiftLevel = .warning
    case 5, 6: swiftLevel = .info
    default: swiftLevel = .debug
    }
    context.logger.log(level: swiftLevel, "librdkafka: \(text)", metadata: ["facility": .string(fac)])
}
