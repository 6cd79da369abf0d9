import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime

/// The requesting half of the runtime's request/reply reference pair: each ask (a probe
/// request) is recorded as pending, in the ask's own transaction, and becomes a request to
/// another stage (the probe), carrying a correlation id and this pair's reply topic.
/// ``ProbeReplyJoiner`` joins the replies; the retrier re-sends and gives up.
package struct ProbeAsker: TransactionalStageProcessor {
    package typealias Prepared = ProbeProcessor.Prepared

    let pending: PendingRequests
    let requestTopic: String
    let replyTopic: String

    package init(pending: PendingRequests, requestTopic: String, replyTopic: String) {
        self.pending = pending
        self.requestTopic = requestTopic
        self.replyTopic = replyTopic
    }

    package func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        ProbeProcessor.Prepared(message: message, request: try message.decode(ProbeRequest.self))
    }

    package func commit(_ batch: [Prepared], in transaction: StageTransaction) async throws -> [StageVerdict] {
        let connection = transaction.connection
        var verdicts: [StageVerdict] = []
        for ask in batch {
            let id = ask.message.header.id
            // Derived from the ask: a redelivered ask makes the same request.
            let correlation = MessageID.derived(from: id, "ask-correlation")
            let request = Message(
                ProbeRequest(n: ask.request.n), id: MessageID.derived(from: id, "ask-request"),
                correlationID: correlation.text, replyTo: replyTopic)
            let output = try StageOutput.json(topic: requestTopic, key: ask.message.key, request)
            let state = ProbeAskState(askID: id, n: ask.request.n, key: ask.message.key)
            verdicts.append(
                .outputs([
                    try await pending.record(
                        output, correlationID: correlation.uuid,
                        context: state, on: connection)
                ]))
        }
        return verdicts
    }
}

/// What the asker remembers of an ask while its request is pending.
struct ProbeAskState: Codable, Sendable {
    let askID: MessageID
    let n: Int
    let key: String?
}
