import Foundation
import HallmarkCore
import Logging
import Synchronization
import rdkafka

/// The C side of ``KafkaConsumer``: a group consumer on a dedicated poll thread.
///
/// Offsets are stored by the caller after processing (`enable.auto.offset.store=false`) and
/// committed by librdkafka every `auto.commit.interval.ms`, synchronously on revocation and
/// once more on close.
final class RDKafkaConsumer: @unchecked Sendable {
    enum State: UInt8 { case idle, running, closing, closed }

    let client: RDKafkaClient
    private let topics: [String]
    private let state = Atomic<UInt8>(State.idle.rawValue)
    /// Messages handed out but not yet taken by the reader: bounds memory when processing lags.
    private let credits: DispatchSemaphore
    private let logger: Logger
    /// Whether fetched messages carry their headers (``KafkaMessage/headers``).
    private let readsHeaders: Bool
    /// The reader's pauses and the consumer's own rests when idle.
    let pauses: ConsumerPauses
    /// Whether a partition with no committed offset starts at its end (`auto.offset.reset=latest`).
    let startsAtEnd: Bool
    /// When the poll loop last went round (``Uptime`` nanoseconds; 0 before it
    /// started): before every poll and every wait for buffer room, so at least every 100 ms
    /// (plus a callback's time) while it lives, fetching or not.
    let lastLoop = Atomic<UInt64>(0)

    init(
        configuration: KafkaConfiguration, groupID: String, topics: [String], bufferCapacity: Int,
        readsHeaders: Bool = false, wakesOnProduce: Bool = false, logger: Logger,
        rebalanceListener: (@Sendable (KafkaRebalanceEvent) -> Void)?
    ) throws {
        self.readsHeaders = readsHeaders
        var properties = configuration.baseProperties
        properties["group.id"] = groupID
        properties["enable.auto.offset.store"] = "false"
        properties["enable.auto.commit"] = "true"
        properties["auto.commit.interval.ms"] = String(configuration.commitIntervalMilliseconds)
        properties["auto.offset.reset"] = "earliest"
        properties["session.timeout.ms"] = String(configuration.sessionTimeoutMilliseconds)
        properties["heartbeat.interval.ms"] = String(configuration.heartbeatIntervalMilliseconds)
        properties["fetch.wait.max.ms"] = String(configuration.fetchWaitMaxMilliseconds)
        properties["partition.assignment.strategy"] = "range,roundrobin"
        properties.merge(configuration.properties) { _, override in override }
        startsAtEnd = properties["auto.offset.reset"] == "latest"
        let pauses = ConsumerPauses(
            policy: FetchRest.Policy(configuration), wakesOnProduce: wakesOnProduce)
        self.pauses = pauses
        let context = RDKafkaContext(logger: logger) { event in
            pauses.assignmentChanged(event.partitions)
            rebalanceListener?(event)
        }
        client = try RDKafkaClient(role: .consumer, properties: properties, context: context) { conf in
            rd_kafka_conf_set_rebalance_cb(conf, rebalance)
        }
        self.topics = topics
        // Start at zero and signal up: libdispatch traps when a semaphore is freed with a value
        // below the one it was created with, which a consumer closed mid-stream would have.
        self.credits = DispatchSemaphore(value: 0)
        for _ in 0..<max(1, bufferCapacity) { credits.signal() }
        self.logger = logger
        rd_kafka_poll_set_consumer(client.handle)
    }

    /// Subscribes and runs the poll loop on a new thread until ``close()``.
    /// - Parameter turn: called on the poll thread at every turn of its loop (at least every
    ///   100 ms) with the time; returns the longest the thread may then block, in milliseconds
    ///   (a ``SharedConsumer``'s readers' rests).
    func start(
        deliver: @escaping @Sendable (KafkaMessage) -> Void, finished: @escaping @Sendable () -> Void,
        turn: (@Sendable (UInt64) -> Int32)? = nil
    ) throws {
        guard
            state.compareExchange(
                expected: State.idle.rawValue, desired: State.running.rawValue,
                ordering: .acquiringAndReleasing
            ).exchanged
        else {
            throw KafkaError(.consumer, "consumer already started")
        }
        guard let list = rd_kafka_topic_partition_list_new(Int32(topics.count)) else {
            throw KafkaError(.consumer, "out of memory")
        }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for topic in topics { rd_kafka_topic_partition_list_add(list, topic, RD_KAFKA_PARTITION_UA) }
        let err = rd_kafka_subscribe(client.handle, list)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(.consumer, "subscribe: \(RDKafkaClient.describe(err))", librdkafkaCode: err.rawValue)
        }
        let thread = Thread { [self] in
            pollLoop(deliver: deliver, turn: turn)
            finished()
        }
        thread.name = "hallmark-kafka-consumer-poll"
        thread.start()
    }

    /// Gives back one buffer slot; called when the reader takes a message.
    func release() { credits.signal() }

    private var isRunning: Bool { state.load(ordering: .acquiring) == State.running.rawValue }

    private func pollLoop(deliver: @Sendable (KafkaMessage) -> Void, turn: (@Sendable (UInt64) -> Int32)?) {
        let rk = client.handle
        while isRunning {
            lastLoop.store(Uptime.now(), ordering: .relaxed)
            rest(now: Uptime.now())
            _ = turn?(Uptime.now())
            // Wait for buffer room; keep serving rebalances meanwhile. A full buffer is traffic.
            guard credits.wait(timeout: .now() + .milliseconds(100)) == .success else {
                perform(pauses.busy(now: Uptime.now()))
                continue
            }
            var used = false
            while isRunning, !used {
                let now = Uptime.now()
                lastLoop.store(now, ordering: .relaxed)
                rest(now: now)
                let longest = turn?(now) ?? 100
                guard let raw = rd_kafka_consumer_poll(rk, min(longest, pauses.pollTimeout(now: now))) else { continue }
                defer { rd_kafka_message_destroy(raw) }
                let m = raw.pointee
                if m.err != RD_KAFKA_RESP_ERR_NO_ERROR {
                    if m.err != RD_KAFKA_RESP_ERR__PARTITION_EOF {
                        logger.warning("consumer error", metadata: ["error": "\(RDKafkaClient.describe(m.err))"])
                    }
                    continue
                }
                var message = Self.message(from: raw, headers: readsHeaders)
                message.generation = client.context.generation.load(ordering: .relaxed)
                perform(pauses.busy(now: Uptime.now()))
                deliver(message)
                used = true
            }
            if !used { credits.signal() }
        }
        // Final synchronous commit of everything stored, then leave the group.
        let err = rd_kafka_commit(rk, nil, 0)
        if err != RD_KAFKA_RESP_ERR_NO_ERROR && err != RD_KAFKA_RESP_ERR__NO_OFFSET {
            logger.warning("final commit failed", metadata: ["error": "\(RDKafkaClient.describe(err))"])
        }
        rd_kafka_consumer_close(rk)
        state.store(State.closed.rawValue, ordering: .releasing)
    }

    /// The message librdkafka handed out. Its timestamp is read through `pointer` itself:
    /// librdkafka finds the timestamp in the private message around the public struct, so a
    /// copy of the struct would read whatever lies beside the copy.
    static func message(from pointer: UnsafeMutablePointer<rd_kafka_message_t>, headers: Bool = false) -> KafkaMessage {
        let m = pointer.pointee
        let topic = m.rkt.map { String(cString: rd_kafka_topic_name($0)) } ?? ""
        let value = m.payload.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: m.len)) } ?? []
        let key = m.key.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: m.key_len)) }
        var tsType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let ts = rd_kafka_message_timestamp(pointer, &tsType)
        return KafkaMessage(
            topic: topic, partition: m.partition, offset: m.offset, key: key, value: value,
            timestampMilliseconds: tsType == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE ? nil : ts,
            headers: headers ? Self.headers(of: pointer) : [])
    }

    /// The message's headers, in order (they stay the message's: librdkafka frees them with it).
    static func headers(of pointer: UnsafeMutablePointer<rd_kafka_message_t>) -> [KafkaHeader] {
        var list: OpaquePointer?
        guard rd_kafka_message_headers(pointer, &list) == RD_KAFKA_RESP_ERR_NO_ERROR, let list else { return [] }
        var headers: [KafkaHeader] = []
        var index = 0
        var name: UnsafePointer<CChar>?
        var value: UnsafeRawPointer?
        var size = 0
        while rd_kafka_header_get_all(list, index, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
            let bytes = value.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
            headers.append(KafkaHeader(name.map { String(cString: $0) } ?? "", bytes))
            index += 1
        }
        return headers
    }

    /// Records that everything before `nextOffset` in that partition is processed.
    func storeOffset(_ partition: KafkaTopicPartition, nextOffset: Int64) throws {
        guard let list = rd_kafka_topic_partition_list_new(1) else { return }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        rd_kafka_topic_partition_list_add(list, partition.topic, partition.partition).pointee.offset = nextOffset
        let err = rd_kafka_offsets_store(client.handle, list)
        // A partition revoked meanwhile reports _STATE: its new owner starts from the last commit.
        if err != RD_KAFKA_RESP_ERR_NO_ERROR && err != RD_KAFKA_RESP_ERR__STATE {
            throw KafkaError(.consumer, "offsets_store: \(RDKafkaClient.describe(err))", librdkafkaCode: err.rawValue)
        }
    }

    /// Commits stored offsets now (blocking).
    func commitSync() throws {
        let err = rd_kafka_commit(client.handle, nil, 0)
        if err != RD_KAFKA_RESP_ERR_NO_ERROR && err != RD_KAFKA_RESP_ERR__NO_OFFSET {
            throw KafkaError(.consumer, "commit: \(RDKafkaClient.describe(err))", librdkafkaCode: err.rawValue)
        }
    }

    /// The committed offsets of the given partitions (blocking), -1001 when none.
    func committed(_ partitions: [KafkaTopicPartition], timeoutMilliseconds: Int32) throws -> [KafkaTopicPartition: Int64] {
        guard let list = rd_kafka_topic_partition_list_new(Int32(partitions.count)) else { return [:] }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for p in partitions { rd_kafka_topic_partition_list_add(list, p.topic, p.partition) }
        let err = rd_kafka_committed(client.handle, list, timeoutMilliseconds)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(.consumer, "committed: \(RDKafkaClient.describe(err))", librdkafkaCode: err.rawValue)
        }
        return Self.offsets(of: list)
    }

    static func offsets(of list: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) -> [KafkaTopicPartition: Int64] {
        var result: [KafkaTopicPartition: Int64] = [:]
        for i in 0..<Int(list.pointee.cnt) {
            let e = list.pointee.elems[i]
            result[KafkaTopicPartition(topic: String(cString: e.topic), partition: e.partition)] = e.offset
        }
        return result
    }

    /// The high watermark (end offset) of each assigned partition, from librdkafka's cache
    /// (no broker round trip). Partitions not fetched yet are left out.
    func highWatermarks() -> [KafkaTopicPartition: Int64] {
        var result: [KafkaTopicPartition: Int64] = [:]
        for p in assignment() {
            var low: Int64 = -1
            var high: Int64 = -1
            let err = rd_kafka_get_watermark_offsets(client.handle, p.topic, p.partition, &low, &high)
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR, high >= 0 else { continue }
            result[p] = high
        }
        return result
    }

    /// The current assignment (a request to librdkafka's main thread).
    func assignment() -> [KafkaTopicPartition] {
        var assignment: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        guard rd_kafka_assignment(client.handle, &assignment) == RD_KAFKA_RESP_ERR_NO_ERROR, let list = assignment else {
            return []
        }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        return Array(Self.offsets(of: list).keys)
    }

    /// Stops fetching these partitions (messages already handed out still arrive) or, with
    /// `resume`, starts again from the next message not yet handed out.
    func setPaused(_ partitions: [KafkaTopicPartition], _ paused: Bool) {
        if paused { pauses.readerPaused(partitions) } else { pauses.readerResumed(partitions) }
        setPausedNative(partitions, paused)
    }

    /// Pauses or resumes in librdkafka only.
    func setPausedNative(_ partitions: [KafkaTopicPartition], _ paused: Bool) {
        guard !partitions.isEmpty, let list = rd_kafka_topic_partition_list_new(Int32(partitions.count)) else { return }
        defer { rd_kafka_topic_partition_list_destroy(list) }
        for p in partitions { rd_kafka_topic_partition_list_add(list, p.topic, p.partition) }
        let err = paused ? rd_kafka_pause_partitions(client.handle, list) : rd_kafka_resume_partitions(client.handle, list)
        if err != RD_KAFKA_RESP_ERR_NO_ERROR {
            logger.warning(paused ? "pause failed" : "resume failed", metadata: ["error": "\(RDKafkaClient.describe(err))"])
        }
    }

    /// Each partition's end offset (high watermark) of `topic`, asked of the broker (blocking).
    func endOffsets(of topic: String, timeoutMilliseconds: Int32) throws -> [Int32: Int64] {
        var metadata: UnsafePointer<rd_kafka_metadata>?
        guard let rkt = rd_kafka_topic_new(client.handle, topic, nil) else {
            throw KafkaError(.consumer, "cannot open topic \(topic)")
        }
        defer { rd_kafka_topic_destroy(rkt) }
        let err = rd_kafka_metadata(client.handle, 0, rkt, &metadata, timeoutMilliseconds)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata else {
            throw KafkaError(.timeout, "metadata: \(RDKafkaClient.describe(err))", librdkafkaCode: err.rawValue)
        }
        defer { rd_kafka_metadata_destroy(metadata) }
        var ends: [Int32: Int64] = [:]
        for t in 0..<Int(metadata.pointee.topic_cnt) where String(cString: metadata.pointee.topics[t].topic) == topic {
            let info = metadata.pointee.topics[t]
            for p in 0..<Int(info.partition_cnt) {
                let partition = info.partitions[p].id
                var low: Int64 = -1, high: Int64 = -1
                let e = rd_kafka_query_watermark_offsets(client.handle, topic, partition, &low, &high, timeoutMilliseconds)
                guard e == RD_KAFKA_RESP_ERR_NO_ERROR else {
                    throw KafkaError(.timeout, "watermarks: \(RDKafkaClient.describe(e))", librdkafkaCode: e.rawValue)
                }
                ends[partition] = high
            }
        }
        return ends
    }

    /// Asks the poll loop to commit, leave the group and end.
    func requestClose() {
        _ = state.compareExchange(
            expected: State.running.rawValue, desired: State.closing.rawValue,
            ordering: .acquiringAndReleasing)
        credits.signal()
    }

    var isClosed: Bool { state.load(ordering: .acquiring) == State.closed.rawValue }
}

/// Eager rebalance: revocation lets the listener finish in-flight work, then commits.
private func rebalance(
    _ rk: OpaquePointer?, _ err: rd_kafka_resp_err_t,
    _ partitions: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
    _ opaque: UnsafeMutableRawPointer?
) {
    guard let rk else { return }
    let context = RDKafkaClient.context(of: rk)
    let list = partitions.map { Array(RDKafkaConsumer.offsets(of: $0).keys) } ?? []
    let generation = (context?.generation.add(1, ordering: .relaxed).newValue) ?? 0
    switch err {
    case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
        context?.logger.info("partitions assigned", metadata: ["partitions": "\(list.map(\.description).sorted())"])
        rd_kafka_assign(rk, partitions)
        // librdkafka keeps a partition's application pause across revocation: a partition
        // paused when it was revoked would come back paused, with nothing left to resume it.
        if let partitions { _ = rd_kafka_resume_partitions(rk, partitions) }
        context?.rebalanceListener?(KafkaRebalanceEvent(kind: .assigned, partitions: list, generation: generation))
    case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
        context?.logger.info("partitions revoked", metadata: ["partitions": "\(list.map(\.description).sorted())"])
        context?.rebalanceListener?(KafkaRebalanceEvent(kind: .revoked, partitions: list, generation: generation))
        _ = rd_kafka_commit(rk, nil, 0)
        rd_kafka_assign(rk, nil)
    default:
        context?.logger.warning("rebalance error", metadata: ["error": "\(RDKafkaClient.describe(err))"])
        rd_kafka_assign(rk, nil)
    }
}
