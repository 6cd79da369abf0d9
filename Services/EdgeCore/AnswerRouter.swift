import Foundation
import HallmarkCore
import HallmarkRuntime
import ServiceLifecycle
import Synchronization

/// Hands each answer on the edge's answer topics (the verifications) to the request of this
/// replica waiting for it, by `correlation_id`. Every replica reads every answer (a consumer
/// group of its own, from the end, nothing committed): the replica that published a request is
/// the one waiting, and any replica may be. Answers nobody here waits for are dropped.
/// Submission outcomes take another way: the receipts stage stores them and tells the waiting
/// replica (``ReceiptOutcomes``).
package final class AnswerRouter: Service, Sendable {
    /// Opened through the transport, owned (started and closed) here.
    private let consumer: any StageSource
    private let waiting = AnswerWaits<String>()
    private let assigned = Flag()

    /// Set from the consumer's thread, read by readiness checks.
    private final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set(_ v: Bool) { value.store(v, ordering: .releasing) }
        var isSet: Bool { value.load(ordering: .acquiring) }
    }

    /// Topics whose messages are not answers: each goes to its observer (the checkpoints).
    private let observers: [String: @Sendable ([UInt8]) -> Void]

    /// Reads `topics` (answers) and the `observers`' topics from `transport`, with a group of
    /// this replica's own.
    package init(
        transport: StageTransport, topics: [String], observers: [String: @Sendable ([UInt8]) -> Void] = [:],
        instance: String
    ) throws {
        self.observers = observers
        let flag = assigned
        consumer = try transport.source(
            StageSourceRequest(
                groupID: "hallmark-edge-answers-\(instance)-\(UInt32.random(in: 0...UInt32.max))",
                topics: topics + observers.keys.sorted(), bufferCapacity: 4096, startsAtEnd: true,
                wakesOnProduce: true,
                rebalanceListener: { event in flag.set(event.kind == .assigned) }))
    }

    /// Whether the consumer has its partitions (readiness: before, an answer could be missed).
    package var isReady: Bool { assigned.isSet }

    package func run() async throws {
        try consumer.start()
        await withGracefulShutdownHandler {
            await route(consumer)
        } onGracefulShutdown: { [consumer] in
            consumer.beginClose()
        }
        await consumer.close()
        // Nothing is answered once the consumer stops: every waiter gets nil at once.
        waiting.endAll()
    }

    /// Routes every message until the source ends.
    private func route(_ source: some StageSource) async {
        for await message in source.messages {
            if let observer = observers[message.topic] {
                observer(message.value)
                continue
            }
            guard let id = Self.correlationID(message.value) else { continue }
            waiting.fill(id, with: message.value)
        }
    }

    /// Runs `send`, then waits up to `timeout` for the answer correlated by `id`; nil when none
    /// came in time. The slot is in place before `send` runs, so no answer is missed.
    package func request(_ id: String, timeout: Duration, send: () async throws -> Void) async throws -> [UInt8]? {
        try await waiting.request(id, timeout: timeout, send: send)
    }

    /// The answer's `correlation_id`, read without decoding its body.
    static func correlationID(_ bytes: [UInt8]) -> String? {
        (try? JSONReader.parse(bytes))?.object?["correlation_id"]?.string?.lowercased()
    }
}
