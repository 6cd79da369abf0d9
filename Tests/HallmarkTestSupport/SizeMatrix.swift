import Foundation
import HallmarkCore
import HallmarkKafka
import Logging

/// Issue #10's size test, for any consumed topic: messages of 0.9 to 8 MB and at the limit
/// ±1 byte, each followed by a small message on the same key and one on another key. Every
/// message must be answered once — its result, a rejected record, or (refused with a readable
/// id) both — and the small ones must keep flowing.
public struct SizeMatrix {
    /// How a large message is made from a small valid one.
    public enum Padding: Sendable, CustomStringConvertible {
        /// Spaces after the JSON object: still the same valid message.
        case whitespace
        /// The message is made at the size by its factory (e.g. a large `body_b64`).
        case content

        public var description: String { self == .whitespace ? "whitespace" : "content" }
    }

    /// What became of every message sent.
    public struct Report: Sendable, CustomStringConvertible {
        /// Messages sent, answered (one outcome or more), stalled (none), and answered more than once.
        public var sent = 0, answered = 0, stalled = 0, duplicated = 0
        /// Large messages' outcomes, by size and padding (e.g. `1048577 whitespace: oversized`).
        public var large: [String] = []
        /// What the stalled and twice-answered messages were.
        public var anomalies: [String] = []
        public var description: String {
            "sent \(sent), answered \(answered), stalled \(stalled), answered twice \(duplicated) \(anomalies.prefix(10))"
        }
    }

    /// The sizes tried against a limit.
    public static func sizes(limit: Int) -> [Int] {
        [900_000, limit - 1, limit, limit + 1, 2_000_000, 4_000_000, 8_000_000]
    }

    let kafka: KafkaConfiguration
    let producer: KafkaProducer
    let logger: Logger

    /// A producer that can send 8 MB messages (the services' own limit is lower).
    public init(kafka: KafkaConfiguration, logger: Logger) throws {
        var big = kafka
        big.maxMessageBytes = 16 << 20
        self.kafka = big
        self.logger = logger
        producer = try KafkaProducer(configuration: big, logger: logger)
    }

    /// Runs the matrix on `topic`. `make(id, size)` returns a valid message with envelope id
    /// `id`: `size` nil for the small ones, else (for ``Padding/content``) made at about that size.
    /// Results are found on `results` by `idField`; rejections on `rejected` by original id or
    /// source offset.
    public func run(
        topic: String, results: String, idField: String, rejected: String, limit: Int,
        paddings: [Padding] = [.whitespace], timeout: Duration = .seconds(180),
        make: (String, Int?) throws -> [UInt8]
    ) async throws -> Report {
        struct Sent {
            let id: String, partition: Int32, offset: Int64, label: String?
            var key = "", size = 0
        }
        var sent: [Sent] = []
        for padding in paddings {
            for (i, size) in Self.sizes(limit: limit).enumerated() {
                let key = "big-\(padding)-\(i)", other = "other-\(padding)-\(i)"
                let id = UUID().uuidString.lowercased()
                var big = try make(id, padding == .content ? size : nil)
                if padding == .whitespace, big.count < size { big += Array(repeating: 0x20, count: size - big.count) }
                let at = try await producer.send(topic: topic, key: Array(key.utf8), value: big)
                sent.append(
                    Sent(id: id, partition: at.partition, offset: at.offset, label: "\(big.count) \(padding)", size: big.count))
                for k in [key, other] {
                    let small = UUID().uuidString.lowercased()
                    let report = try await producer.send(topic: topic, key: Array(k.utf8), value: try make(small, nil))
                    sent.append(Sent(id: small, partition: report.partition, offset: report.offset, label: nil, key: k))
                }
            }
        }
        // Outcomes until every message has one, or the time is up (then what is missing stalled).
        // A message over the limit is refused, so it has a rejected record as well as, with a
        // readable id, a rejected result; the two topics are written independently, and reading
        // on once its result is in keeps the record from being missed.
        // So is one under the limit whose result would not fit: its result says `oversized`,
        // and its record may come later (the two topics' partitions are read in any order).
        func complete(_ s: Sent) -> Bool {
            guard let found = outcomes[s.id] else { return false }
            let refused = found.contains { $0.hasPrefix("result") && $0.hasSuffix(" oversized") }
            return (s.size <= limit && !refused) || found.contains { !$0.hasPrefix("result") }
        }
        var outcomes: [String: [String]] = [:]
        var seen: [String: [Int32: Int64]] = [:]
        var answers = Set<String>()
        func record(_ message: KafkaMessage, fromResults: Bool) {
            seen[message.topic, default: [:]][message.partition] = max(
                seen[message.topic]?[message.partition] ?? 0, message.offset + 1)
            guard let object = try? JSONSerialization.jsonObject(with: Data(message.value)) as? [String: Any] else { return }
            // A redelivery (a rebalance under load) is answered again under the same id: one outcome.
            if let answerID = object["id"] as? String, !answers.insert("\(message.topic)/\(answerID)").inserted { return }
            if fromResults {
                if let id = object[idField] as? String {
                    let refused = object["reason"] as? String == "oversized" ? " oversized" : ""
                    outcomes[id, default: []].append("result@\(message.partition)/\(message.offset)\(refused)")
                }
                return
            }
            let reason = object["reason"] as? String ?? "?"
            if let id = object["original_id"] as? String, sent.contains(where: { $0.id == id }) {
                outcomes[id, default: []].append(reason)
            } else if let source = object["source"] as? [String: Any], source["topic"] as? String == topic,
                let offset = (source["offset"] as? NSNumber)?.int64Value,
                let partition = (source["partition"] as? NSNumber)?.int32Value,
                let match = sent.first(where: { $0.offset == offset && $0.partition == partition })
            {
                outcomes[match.id, default: []].append(reason)
            }
        }
        let consumer = try KafkaConsumer(
            configuration: kafka, groupID: "size-\(UUID())", topics: [results, rejected],
            bufferCapacity: 64, logger: logger)
        try consumer.start()
        let timer = Task {
            try? await Task.sleep(for: timeout)
            consumer.beginClose()
        }
        for await message in consumer.messages {
            record(message, fromResults: message.topic == results)
            if sent.allSatisfy(complete) { break }
        }
        timer.cancel()
        await consumer.close()
        // Once every message has its outcome, both topics again to their ends: a second
        // outcome produced by then is counted.
        let firstPass = outcomes
        var ends: [String] = []
        if sent.allSatisfy({ outcomes[$0.id] != nil }) {
            outcomes = [:]
            answers = []
            for topic in [results, rejected] {
                let (messages, end) = try await readToEnd(topic, atLeast: seen[topic] ?? [:])
                ends.append("\(topic == results ? "results" : "rejected") ends \(end.sorted { $0.key < $1.key })")
                for message in messages { record(message, fromResults: topic == results) }
            }
        }
        var report = Report()
        report.sent = sent.count
        for s in sent {
            let found = outcomes[s.id] ?? []
            // One rejected record and one result at most: a refused message with a readable id
            // is answered on the result topic too (DESIGN §2).
            let results = found.filter { $0.hasPrefix("result") }.count, records = found.count - results
            if found.isEmpty { report.stalled += 1 } else { report.answered += 1 }
            if results > 1 || records > 1 { report.duplicated += 1 }
            if found.isEmpty || results > 1 || records > 1 {
                report.anomalies += ends
                report.anomalies.append(
                    "\(s.label ?? "small on \(s.key)") at \(s.partition)/\(s.offset): \(found), first read \(firstPass[s.id] ?? [])"
                )
            }
            if let label = s.label {
                let record = found.first { !$0.hasPrefix("result") }
                report.large.append("\(label): \(record ?? (found.isEmpty ? "none" : "result"))")
            }
        }
        return report
    }

    /// Everything on `topic` up to the end offsets the broker has now, and at least up to the
    /// offsets already seen: Tansu's end offset can lag a record that fetches already return
    /// (seen here: one less than a record read seconds before).
    func readToEnd(_ topic: String, atLeast seen: [Int32: Int64]) async throws -> ([KafkaMessage], [Int32: Int64]) {
        let consumer = try KafkaConsumer(
            configuration: kafka, groupID: "size-end-\(UUID())", topics: [topic],
            bufferCapacity: 64, logger: logger)
        let ends = try await consumer.endOffsets(of: topic).merging(seen) { max($0, $1) }
        guard ends.values.contains(where: { $0 > 0 }) else { return ([], ends) }
        try consumer.start()
        var next: [Int32: Int64] = [:], messages: [KafkaMessage] = [], gaps: [String] = []
        let timer = Task {
            try? await Task.sleep(for: .seconds(60))
            consumer.beginClose()
        }
        for await message in consumer.messages {
            messages.append(message)
            if message.offset != (next[message.partition] ?? 0) {
                gaps.append("\(message.partition): \(next[message.partition] ?? 0)..<\(message.offset)")
            }
            next[message.partition] = message.offset + 1
            if ends.allSatisfy({ $0.value == 0 || (next[$0.key] ?? 0) >= $0.value }) { break }
        }
        timer.cancel()
        await consumer.close()
        guard gaps.isEmpty else { throw SizeMatrixError(description: "\(topic): offsets skipped by the reader: \(gaps)") }
        guard ends.allSatisfy({ $0.value == 0 || (next[$0.key] ?? 0) >= $0.value }) else {
            throw SizeMatrixError(description: "\(topic) not read to its end: \(next) of \(ends)")
        }
        return (messages, ends)
    }

    public func close() async { await producer.close() }
}

/// The size matrix could not read its topics.
public struct SizeMatrixError: Error, CustomStringConvertible {
    public let description: String
}
