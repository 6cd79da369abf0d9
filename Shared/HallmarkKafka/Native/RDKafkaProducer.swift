import Foundation
import Logging
import Synchronization
import rdkafka

/// Who hears of a message's delivery, carried through librdkafka as the message opaque.
private class DeliveryTarget {
    func delivered(_ m: rd_kafka_message_t) {}

    static func error(of m: rd_kafka_message_t) -> KafkaError? {
        guard m.err != RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
        return KafkaError.produceFailure(m.err.rawValue, RDKafkaClient.describe(m.err), code: .delivery)
    }
}

/// One in-flight message's continuation.
private final class DeliveryBox: DeliveryTarget {
    let continuation: CheckedContinuation<KafkaDeliveryReport, any Error>
    init(_ continuation: CheckedContinuation<KafkaDeliveryReport, any Error>) {
        self.continuation = continuation
    }

    override func delivered(_ m: rd_kafka_message_t) {
        if let error = Self.error(of: m) { return continuation.resume(throwing: error) }
        let topic = m.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
        continuation.resume(returning: KafkaDeliveryReport(topic: topic, partition: m.partition, offset: m.offset))
    }
}

/// A message of a ``KafkaDeliveryGroup``.
private final class GroupDelivery: DeliveryTarget {
    let group: KafkaDeliveryGroup
    init(_ group: KafkaDeliveryGroup) { self.group = group }
    override func delivered(_ m: rd_kafka_message_t) { group.completed(Self.error(of: m)) }
}

/// The C side of ``KafkaProducer``: an idempotent producer handle, its topic handles and a
/// dedicated thread that serves delivery reports.
final class RDKafkaProducer: @unchecked Sendable {
    private let client: RDKafkaClient
    private let topics = Mutex<[String: OpaquePointer]>([:])
    private let running = RunFlag()
    private let pollThreadDone = DispatchSemaphore(value: 0)

    init(configuration: KafkaConfiguration, logger: Logger) throws {
        var properties = configuration.baseProperties
        properties["enable.idempotence"] = "true"
        properties["acks"] = "all"
        properties["linger.ms"] = String(configuration.lingerMilliseconds)
        properties["max.in.flight.requests.per.connection"] = String(configuration.requestsInFlight)
        // Values over the limit are refused before they are enqueued (KafkaError `oversized`);
        // this leaves room for the key and framing of one that fits.
        properties["message.max.bytes"] = String(configuration.maxMessageBytes + KafkaConfiguration.recordOverheadBytes)
        properties.merge(configuration.properties) { _, override in override }
        client = try RDKafkaClient(
            role: .producer, properties: properties,
            context: RDKafkaContext(logger: logger)
        ) { conf in
            rd_kafka_conf_set_dr_msg_cb(conf, deliveryReport)
        }
        let thread = Thread { [client, running, pollThreadDone] in
            while running.isSet { rd_kafka_poll(client.handle, 100) }
            pollThreadDone.signal()
        }
        thread.name = "hallmark-kafka-producer-poll"
        thread.start()
    }

    deinit {
        stopPolling()
        for (_, topic) in topics.withLock({ $0 }) { rd_kafka_topic_destroy(topic) }
    }

    private func stopPolling() {
        if running.clear() { pollThreadDone.wait() }
    }

    private func topicHandle(_ name: String) throws -> OpaquePointer {
        try topics.withLock { cache in
            if let topic = cache[name] { return topic }
            guard let topic = rd_kafka_topic_new(client.handle, name, nil) else {
                throw KafkaError(
                    .produce, "cannot open topic \(name)",
                    librdkafkaCode: rd_kafka_last_error().rawValue)
            }
            cache[name] = topic
            return topic
        }
    }

    /// Enqueues one message; the continuation resumes from the delivery report.
    func produce(
        topic: String, partition: Int32?, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader],
        continuation: CheckedContinuation<KafkaDeliveryReport, any Error>
    ) -> Int32 {
        let rkt: OpaquePointer
        do { rkt = try topicHandle(topic) } catch {
            continuation.resume(throwing: error)
            return 0
        }
        return produce(
            rkt, partition: partition, key: key, value: value, headers: headers, target: DeliveryBox(continuation))
    }

    /// Enqueues one message of `group` with `headers` (the message's own already in them);
    /// returns librdkafka's error code (0: enqueued).
    func produce(_ message: KafkaOutgoingMessage, headers: [KafkaHeader], into group: KafkaDeliveryGroup) -> Int32 {
        guard let rkt = try? topicHandle(message.topic) else {
            let code = rd_kafka_last_error().rawValue
            return code != 0 ? code : RD_KAFKA_RESP_ERR__INVALID_ARG.rawValue
        }
        group.added()
        let code = produce(
            rkt, partition: message.partition, key: message.key, value: message.value, headers: headers,
            target: GroupDelivery(group))
        if code != 0 { group.completed(nil) }  // not enqueued: the caller retries or throws
        return code
    }

    private func produce(
        _ rkt: OpaquePointer, partition: Int32?, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader],
        target: DeliveryTarget
    ) -> Int32 {
        let box = Unmanaged.passRetained(target).toOpaque()
        if !headers.isEmpty {
            let code = produceWithHeaders(rkt, partition: partition, key: key, value: value, headers: headers, box)
            if code != 0 { Unmanaged<DeliveryTarget>.fromOpaque(box).release() }
            return code
        }
        let result: Int32 = value.withUnsafeBytes { v in
            func send(_ k: UnsafeRawBufferPointer?) -> Int32 {
                rd_kafka_produce(
                    rkt, partition ?? RD_KAFKA_PARTITION_UA, RD_KAFKA_MSG_F_COPY,
                    UnsafeMutableRawPointer(mutating: v.baseAddress), v.count,
                    k?.baseAddress, k?.count ?? 0, box)
            }
            if let key { return key.withUnsafeBytes { send($0) } }
            return send(nil)
        }
        guard result == 0 else {
            Unmanaged<DeliveryTarget>.fromOpaque(box).release()
            return rd_kafka_last_error().rawValue
        }
        return 0
    }

    /// `rd_kafka_produceva` (the headers are only there): every header as its own
    /// `RD_KAFKA_VTYPE_HEADER`, which librdkafka copies, so nothing changes owner. The names
    /// (NUL-terminated) and values lie in one buffer that outlives the call.
    private func produceWithHeaders(
        _ rkt: OpaquePointer, partition: Int32?, key: [UInt8]?, value: [UInt8], headers: [KafkaHeader],
        _ box: UnsafeMutableRawPointer
    ) -> Int32 {
        var packed: [UInt8] = []
        packed.reserveCapacity(headers.reduce(0) { $0 + $1.name.utf8.count + 1 + $1.value.count })
        var places: [(name: Int, value: Int, count: Int)] = []
        places.reserveCapacity(headers.count)
        for header in headers {
            let name = packed.count
            packed += header.name.utf8
            packed.append(0)
            places.append((name, packed.count, header.value.count))
            packed += header.value
        }
        return packed.withUnsafeBufferPointer { buffer in
            value.withUnsafeBytes { v in
                func send(_ k: UnsafeRawBufferPointer?) -> Int32 {
                    let base = UnsafeRawPointer(buffer.baseAddress!)
                    var vus: [rd_kafka_vu_t] = []
                    vus.reserveCapacity(6 + places.count)
                    func add(_ type: rd_kafka_vtype_t, _ fill: (inout rd_kafka_vu_t) -> Void) {
                        var vu = rd_kafka_vu_t()
                        vu.vtype = type
                        fill(&vu)
                        vus.append(vu)
                    }
                    add(RD_KAFKA_VTYPE_RKT) { $0.u.rkt = rkt }
                    add(RD_KAFKA_VTYPE_PARTITION) { $0.u.i32 = partition ?? RD_KAFKA_PARTITION_UA }
                    add(RD_KAFKA_VTYPE_MSGFLAGS) { $0.u.i = RD_KAFKA_MSG_F_COPY }
                    add(RD_KAFKA_VTYPE_VALUE) {
                        $0.u.mem.ptr = UnsafeMutableRawPointer(mutating: v.baseAddress)
                        $0.u.mem.size = v.count
                    }
                    if let k {
                        add(RD_KAFKA_VTYPE_KEY) {
                            $0.u.mem.ptr = UnsafeMutableRawPointer(mutating: k.baseAddress)
                            $0.u.mem.size = k.count
                        }
                    }
                    add(RD_KAFKA_VTYPE_OPAQUE) { $0.u.ptr = box }
                    for place in places {
                        add(RD_KAFKA_VTYPE_HEADER) {
                            $0.u.header.name = base.advanced(by: place.name).assumingMemoryBound(to: CChar.self)
                            $0.u.header.val = base.advanced(by: place.value)
                            $0.u.header.size = place.count
                        }
                    }
                    guard let error = rd_kafka_produceva(client.handle, vus, vus.count) else { return 0 }
                    defer { rd_kafka_error_destroy(error) }
                    return rd_kafka_error_code(error).rawValue
                }
                if let key { return key.withUnsafeBytes { send($0) } }
                return send(nil)
            }
        }
    }

    /// Waits (on the calling thread) until every queued message is delivered or failed.
    func flush(timeoutMilliseconds: Int32) -> Bool {
        rd_kafka_flush(client.handle, timeoutMilliseconds) == RD_KAFKA_RESP_ERR_NO_ERROR
    }

    var queueLength: Int { Int(rd_kafka_outq_len(client.handle)) }

    static let queueFullCode: Int32 = RD_KAFKA_RESP_ERR__QUEUE_FULL.rawValue
    /// Codes that mean "this message can never be produced": retrying cannot help.
    static let sizeCodes: Set<Int32> = [
        RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE.rawValue,
        RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE.rawValue,
        RD_KAFKA_RESP_ERR_INVALID_RECORD.rawValue,
    ]
    static func describe(_ code: Int32) -> String { RDKafkaClient.describe(rd_kafka_resp_err_t(rawValue: code)) }
}

/// librdkafka calls this on the poll thread once per message, delivered or failed.
private func deliveryReport(
    _ rk: OpaquePointer?, _ message: UnsafePointer<rd_kafka_message_t>?,
    _ opaque: UnsafeMutableRawPointer?
) {
    guard let message, let raw = message.pointee._private else { return }
    Unmanaged<DeliveryTarget>.fromOpaque(raw).takeRetainedValue().delivered(message.pointee)
}

/// A flag a dedicated thread polls to know when to stop.
final class RunFlag: Sendable {
    private let value = Atomic<Bool>(true)
    var isSet: Bool { value.load(ordering: .acquiring) }
    /// Clears the flag; true if it was set.
    func clear() -> Bool { value.exchange(false, ordering: .acquiringAndReleasing) }
}
