import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import Logging

/// Asks the aggregator's log and waits for the answer: the CLI's side of
/// `birthmark.verify.requests` / `birthmark.verify.results`.
struct LogQuestion {
    let producer: KafkaProducer
    let watcher: AnswerWatcher
    let requests: String
    let results: String
    let timeout: Duration

    /// Sends `request` and returns its answer (nil on timeout).
    func ask(_ request: Message<LogVerifyRequest>) async throws -> LogVerifyResult? {
        try await producer.send(topic: requests, key: nil, value: JSONCoding.encode(request))
        guard let bytes = await watcher.answer(for: request.id, on: results, timeout: timeout) else { return nil }
        return try JSONCoding.decode(LogVerifyResult.self, from: bytes)
    }

    /// Inclusion of `imageHash`.
    func inclusion(_ imageHash: String) async throws -> LogVerifyResult? {
        try await ask(Message(LogVerifyRequest(imageHash: imageHash)))
    }

    /// Consistency from `old` to `new` (the latest when nil).
    func consistency(old: UInt64, new: UInt64? = nil) async throws -> LogVerifyResult? {
        try await ask(Message(LogVerifyRequest(oldTreeSize: old, newTreeSize: new)))
    }
}
