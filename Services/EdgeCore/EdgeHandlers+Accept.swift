import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkRuntime
import Logging
import NIOCore

extension EdgeHandlers {
    /// The submission `body`, read on the event loop whose `deadlines` are given, answered
    /// through `answer` (once, from any thread) as ``submit(_:)`` answers it: 400 for what is
    /// not a bundle, at once; else the receipt opened, the bundle published and the receipt's
    /// answer, with its outcome when it comes within the configured wait (counted from here);
    /// 503 when the store or the broker does not answer within the backend timeout.
    ///
    /// One task does the backend work and the loop keeps both deadlines, where the router's
    /// path costs a task per deadline and the stream of request parts besides.
    func accept(
        _ body: [UInt8], deadlines: LoopDeadlines, logger: Logger,
        answer: @escaping @Sendable (Result<[UInt8], EdgeError>) -> Void
    ) {
        let (message, value): (Message<Submission>, [UInt8])
        do { (message, value) = try CameraBundle.written(body) } catch { return answer(.failure(EdgeError(error))) }
        guard let receipt = UUID(text: message.id.text) else {
            return answer(.failure(EdgeError(.malformed, "no receipt id")))
        }
        let (receipts, outcomes, producer) = (self.receipts, self.outcomes, self.producer)
        let (topic, id, key) = (configuration.submissions, message.id, message.body.captureKey)
        // In place before the bundle is published, so no outcome is missed.
        let slot = outcomes.expect(receipt)
        let attempt = SubmitAttempt(answer: answer)
        attempt.start {
            defer { outcomes.forget(receipt, slot) }
            do {
                try await receipts.open(receipt)
                attempt.enter(.publishing)
                try await producer.send([KafkaOutgoingMessage(topic: topic, key: key, value: value)])
                attempt.enter(.waiting)
                let result = await slot.value()
                attempt.finish(.success(ReceiptAnswer.json(receipt: id, result: result)))
            } catch let error as EdgeError {
                attempt.finish(.failure(error))
            } catch {
                // As EdgeErrorMiddleware answers what the router's path throws.
                if attempt.finish(.failure(EdgeError(.unavailable, "the request cannot be served now"))) {
                    logger.warning(
                        "request failed", metadata: ["path": "submit", "error": "\(ErrorPolicy.safeDescription(error))"])
                }
            }
        }
        deadlines.after(Self.backendTimeout) { attempt.expire() }
        deadlines.after(configuration.answerWait) { slot.fill(nil) }
    }
}
