import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import Logging
import Synchronization

/// Reads answer topics with a throwaway consumer group and keeps every message by the
/// request it answers (`correlation_id`, else `request_id`), for the CLI, traffic, bench and tests.
package final class AnswerWatcher: Sendable {
    let consumer: KafkaConsumer
    private let assigned: AssignmentFlag
    private let store = Mutex<Store>(Store())

    struct Store {
        var byRequest: [String: [[UInt8]]] = [:]
        var byTopic: [String: [[UInt8]]] = [:]
        var firstArrival: [String: ContinuousClock.Instant] = [:]
    }

    /// Subscribes to `topics`; `fromStart` reads everything, otherwise only what arrives after
    /// the assignment. Call ``run()`` in a task, then ``waitUntilAssigned(timeout:)``.
    package init(kafka: KafkaConfiguration, topics: [String], fromStart: Bool, logger: Logger) throws {
        var config = kafka
        config.properties["auto.offset.reset"] = fromStart ? "earliest" : "latest"
        let flag = AssignmentFlag()
        assigned = flag
        consumer = try KafkaConsumer(
            configuration: config, groupID: "hallmark-answers-\(UInt64.random(in: 0...UInt64.max))", topics: topics,
            bufferCapacity: 8192, wakesOnProduce: true, logger: logger,
            rebalanceListener: { event in if event.kind == .assigned { flag.set() } })
    }

    /// Reads until ``close()``.
    package func run() async {
        do { try consumer.start() } catch { return }
        for await message in consumer.messages {
            let id = Self.requestId(message.value)
            let now = ContinuousClock.now
            store.withLock { s in
                if let id {
                    s.byRequest[id, default: []].append(message.value)
                    if s.firstArrival[id] == nil { s.firstArrival[id] = now }
                }
                s.byTopic[message.topic, default: []].append(message.value)
            }
        }
    }

    /// Waits until the consumer has its partitions, plus a moment for their start offsets.
    package func waitUntilAssigned(timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !assigned.isSet {
            guard ContinuousClock.now < deadline else { throw AuthorityClientError(.timeout, "no partition assignment in time") }
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .milliseconds(500))
    }

    /// Every answer seen so far for a request (its correlation id, else its id).
    package func answers(for requestId: String) -> [[UInt8]] { store.withLock { $0.byRequest[requestId] ?? [] } }

    /// Every answer seen so far for a request sent without a correlation id.
    package func answers(for request: MessageID) -> [[UInt8]] { answers(for: request.text) }

    /// When the first answer to each request arrived.
    package func arrivals() -> [String: ContinuousClock.Instant] { store.withLock { $0.firstArrival } }

    /// Every message seen so far on a topic.
    package func messages(on topic: String) -> [[UInt8]] { store.withLock { $0.byTopic[topic] ?? [] } }

    /// Every message seen so far on `topics`, with its topic.
    package func outputs(on topics: [String]) -> [(topic: String, value: [UInt8])] {
        topics.flatMap { topic in messages(on: topic).map { (topic, $0) } }
    }

    /// Waits for the first answer to `requestId` on `topic` (any topic when nil).
    package func answer(for requestId: String, on topic: String? = nil, timeout: Duration) async -> [UInt8]? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let found = store.withLock { s -> [UInt8]? in
                guard let all = s.byRequest[requestId] else { return nil }
                guard let topic else { return all.first }
                let onTopic = Set((s.byTopic[topic] ?? []).map { $0 })
                return all.first { onTopic.contains($0) }
            }
            if let found { return found }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Waits for the first answer to `request`, sent without a correlation id.
    package func answer(for request: MessageID, on topic: String? = nil, timeout: Duration) async -> [UInt8]? {
        await answer(for: request.text, on: topic, timeout: timeout)
    }

    /// Waits until `condition` holds over what was seen.
    package func wait(timeout: Duration, until condition: @Sendable (AnswerWatcher) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition(self)
    }

    /// Stops reading.
    package func close() async {
        consumer.beginClose()
        await consumer.close()
    }

    /// The `correlation_id` (else `request_id`) of a JSON message.
    /// Read with the runtime's own reader: Foundation's `JSONSerialization` cost the benches a
    /// few percent of their process's CPU, billed to the stage they share it with.
    package static func requestId(_ value: [UInt8]) -> String? {
        guard case .object(let fields)? = try? JSONReader.parse(value) else { return nil }
        if case .string(let id)? = fields["correlation_id"] { return id }
        if case .string(let id)? = fields["request_id"] { return id }
        return nil
    }
}

/// Set once by the consumer's poll thread when partitions are assigned.
final class AssignmentFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
