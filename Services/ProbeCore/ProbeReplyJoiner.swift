import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import Metrics

/// The replying half of the request/reply reference pair: joins each reply (a probe result)
/// to its pending request by `correlation_id` in the reply's transaction, and answers the
/// original ask. A reply that joins nothing (late, after the request was given up, or a
/// duplicate) is counted and produces nothing.
package struct ProbeReplyJoiner: TransactionalStageProcessor {
    /// A reply joins by its header's correlation id alone; its body (checked against its
    /// schema at intake) is not needed.
    package typealias Prepared = StageMessage

    let pending: PendingRequests
    let answerTopic: String
    let instance: String
    let unmatched: Counter

    package init(pending: PendingRequests, answerTopic: String, instance: String) {
        self.pending = pending
        self.answerTopic = answerTopic
        self.instance = instance
        unmatched = Counter(label: "hallmark_requests_unmatched_replies_total", dimensions: [("service", "probe")])
    }

    package func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        message
    }

    /// One transaction for a whole batch.
    package var unitOfWork: StageUnitOfWork { .perBatch }

    package func commit(_ batch: [Prepared], in transaction: StageTransaction) async throws -> [StageVerdict] {
        let connection = transaction.connection
        let ids = batch.compactMap { $0.header.correlationID.flatMap { UUID(text: $0) } }
        let joined = try await pending.take(ids, on: connection)
        return try batch.map { item in
            guard let id = item.header.correlationID.flatMap({ UUID(text: $0) }), let request = joined[id] else {
                unmatched.increment()
                transaction.logger.info(
                    "reply joins no pending request", metadata: ["correlation_id": "\(item.header.correlationID ?? "-")"])
                return .outputs([])
            }
            let state = try request.context(as: ProbeAskState.self)
            return .outputs([try Self.answer(state, instance: instance, topic: answerTopic)])
        }
    }

    /// The answer to an ask: its `n` back, or the typed outcome of a request given up.
    static func answer(_ state: ProbeAskState, instance: String, topic: String, outcome: String? = nil) throws -> StageOutput {
        let answer = Message(
            ProbeResult(n: state.n, instance: instance, outcome: outcome),
            id: MessageID.derived(from: state.askID, "ask-answer"), correlationID: state.askID.text)
        return try .json(topic: topic, key: state.key, answer)
    }
}
