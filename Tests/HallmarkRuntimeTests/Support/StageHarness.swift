import Foundation
import HallmarkTestSupport
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import HallmarkPostgres
import Logging
import Testing

/// One test's private world on the real broker and database: its own topics, consumer group
/// and schema, so tests never see each other's messages.
final class StageHarness: Sendable {
    let id = String(UUID().uuidString.prefix(8)).lowercased()
    let kafka: KafkaConfiguration
    let producer: KafkaProducer
    let pool: PostgresPool
    let logger: Logger

    var input: String { "test.probe.\(id).in" }
    var output: String { "test.probe.\(id).out" }
    var rejected: String { "test.probe.\(id).rejected" }
    var metrics: String { "test.probe.\(id).metrics" }
    var schema: String { "probe_\(id)" }
    var group: String { "test-probe-\(id)" }

    init() async throws {
        var logger = Logger(label: "stage-harness")
        logger.logLevel = .warning
        self.logger = logger
        kafka = try KafkaConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        producer = try KafkaProducer(configuration: kafka, logger: logger)
        pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(), logger: logger)
        try await KafkaAdmin(configuration: kafka, logger: logger).createTopics(
            [input, output, rejected, metrics], partitions: 4)
    }

    /// Starts a probe process in this harness's world.
    func startProbe(_ name: String, _ extra: [String: String] = [:]) throws -> ServiceProcess {
        try ServiceProcess(
            "hallmark", arguments: ["probe"], name: "\(id)-\(name)",
            environment: [
                "HALLMARK_PROBE_INPUT": input, "HALLMARK_PROBE_OUTPUT": output, "HALLMARK_PROBE_SCHEMA": schema,
                "HALLMARK_GROUP_ID": group, "HALLMARK_REJECTED_TOPIC": rejected, "HALLMARK_INSTANCE": name,
                "HALLMARK_POSTGRES_POOL_SIZE": "12", "HALLMARK_MAX_IN_FLIGHT": "32", "HALLMARK_LOG_LEVEL": "info",
                "HALLMARK_METRICS_INTERVAL_MS": "2000", "HALLMARK_METRICS_TOPIC": metrics,
            ].merging(extra) { _, new in new })
    }

    /// A valid probe request.
    static func request(n: Int, id: MessageID = .random(), fail: String? = nil) -> [UInt8] {
        let failField = fail.map { #","fail":"\#($0)""# } ?? ""
        return Array(
            #"{"schema":"hallmark.probe.request.v1","id":"\#(id.text)","produced_at":"\#(Timestamp.now().text)","n":\#(n)\#(failField)}"#
                .utf8)
    }

    /// Sends `count` valid requests spread over `keys` keys; returns their ids.
    @discardableResult
    func produceRequests(_ count: Int, keys: Int = 50, from first: Int = 0) async throws -> [MessageID] {
        let ids = (0..<count).map { _ in MessageID.random() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, id) in ids.enumerated() {
                if i >= 2000 { try await group.next() }
                group.addTask {
                    try await self.producer.send(
                        topic: self.input, key: Array("key-\(i % keys)".utf8),
                        value: Self.request(n: first + i, id: id))
                }
            }
            try await group.waitForAll()
        }
        return ids
    }

    /// Sends `perKey` requests on each of `keys` keys; one key's requests go one after the
    /// other (each acknowledged before the next), so their `n` order is their partition order.
    func produceOrdered(keys: Int, perKey: Int) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for k in 0..<keys {
                group.addTask {
                    for i in 0..<perKey {
                        try await self.producer.send(
                            topic: self.input, key: Array("key-\(k)".utf8),
                            value: Self.request(n: i))
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// Effect rows written by the probe: all of them, and distinct message ids.
    func effects() async throws -> (rows: Int, distinct: Int) {
        do {
            let rows = try await pool.withRetry(attempts: 20) {
                try await pool.query(
                    "SELECT count(*)::bigint, count(DISTINCT message_id)::bigint FROM \(unescaped: schema).effects")
            }
            let (all, distinct) = try rows[0].decode((Int64, Int64).self)
            return (Int(all), Int(distinct))
        } catch let error as PostgresError where error.sqlState == "42P01" {
            return (0, 0)  // the probe has not created its table yet
        }
    }

    /// Polls `condition` until it holds or `timeout` passes.
    func wait(_ what: String, timeout: Duration, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw HarnessError("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    func waitForEffects(_ expected: Int, timeout: Duration = .seconds(180)) async throws {
        try await wait("\(expected) effects", timeout: timeout) { try await effects().distinct >= expected }
    }

    /// Reads a topic from the start until `count` messages arrived or `timeout` passed.
    func read(_ topic: String, count: Int, timeout: Duration = .seconds(60)) async throws -> [KafkaMessage] {
        try await read(topic, timeout: timeout) { $0.count >= count }
    }

    /// The ids answered on the output topic, read until all of `ids` are there or time runs out.
    func answered(_ ids: [MessageID], timeout: Duration = .seconds(60)) async throws -> Set<MessageID> {
        let wanted = Set(ids)
        var seen = Set<MessageID>()
        _ = try await read(output, timeout: timeout) { messages in
            if let last = messages.last, let id = Self.field("correlation_id", in: last.value).flatMap(MessageID.init),
                wanted.contains(id)
            {
                seen.insert(id)
            }
            return seen.count == wanted.count
        }
        return seen
    }

    static func field(_ name: String, in value: [UInt8]) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(value)) as? [String: Any])?[name] as? String
    }

    /// Reads a topic from the start until `done` holds or `timeout` passed.
    func read(_ topic: String, timeout: Duration, until done: ([KafkaMessage]) -> Bool) async throws -> [KafkaMessage] {
        let consumer = try KafkaConsumer(
            configuration: kafka, groupID: "reader-\(UUID())", topics: [topic],
            bufferCapacity: 4096, logger: logger)
        try consumer.start()
        let timer = Task {
            try? await Task.sleep(for: timeout)
            consumer.beginClose()
        }
        var messages: [KafkaMessage] = []
        for await message in consumer.messages {
            messages.append(message)
            if done(messages) { break }
        }
        timer.cancel()
        await consumer.close()
        return messages
    }

    /// Everything on `topic` now. With `sentinels` (for a topic no stage consumes), a marker
    /// is appended to every partition and the read ends at the markers: exact, whatever the
    /// broker says of its end offsets (Tansu's can lag a record fetches already return).
    /// Without, the read ends at the end offsets the broker reports.
    func readAll(_ topic: String, sentinels: Bool = true, timeout: Duration = .seconds(60)) async throws -> [KafkaMessage] {
        let consumer = try KafkaConsumer(
            configuration: kafka, groupID: "reader-\(UUID())", topics: [topic],
            bufferCapacity: 4096, logger: logger)
        var ends = try await consumer.endOffsets(of: topic)
        let marker = Array("hallmark-test-sentinel-\(UUID())".utf8)
        if sentinels {
            for partition in ends.keys {
                let at = try await producer.send(topic: topic, key: marker, value: marker, partition: partition)
                ends[partition] = at.offset + 1
            }
        }
        guard ends.values.contains(where: { $0 > 0 }) else { return [] }
        try consumer.start()
        let timer = Task {
            try? await Task.sleep(for: timeout)
            consumer.beginClose()
        }
        var messages: [KafkaMessage] = []
        var next: [Int32: Int64] = [:]
        for await message in consumer.messages {
            if message.key != marker { messages.append(message) }
            next[message.partition] = message.offset + 1
            if ends.allSatisfy({ partition, end in end == 0 || (next[partition] ?? 0) >= end }) { break }
        }
        timer.cancel()
        await consumer.close()
        guard ends.allSatisfy({ partition, end in end == 0 || (next[partition] ?? 0) >= end }) else {
            throw HarnessError("\(topic) not read to its end within \(timeout)")
        }
        return messages
    }

    func close() async {
        await producer.close()
        pool.close()
    }
}
