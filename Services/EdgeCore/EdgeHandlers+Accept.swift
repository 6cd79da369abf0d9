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
    /// No task: each step begins from the callback of the one before (``SubmitAttempt``), and
    /// the loop keeps both deadlines, where the router's path costs a task per deadline and the
    /// stream of request parts besides.
    func accept(
        _ body: [UInt8], kind: CameraBundle.Kind = .token, deadlines: LoopDeadlines, logger: Logger,
        answer: @escaping @Sendable (Result<[UInt8], EdgeError>) -> Void
    ) {
        let (message, value): (Message<Submission>, [UInt8])
        do { (message, value) = try CameraBundle.written(body, kind: kind) } catch {
            return answer(.failure(EdgeError(error)))
        }
        guard let receipt = UUID(text: message.id.text) else {
            return answer(.failure(EdgeError(.malformed, "no receipt id")))
        }
        let (receipts, outcomes, producer) = (self.receipts, self.outcomes, self.producer)
        let (topic, id, key) = (configuration.submissions, message.id, message.body.captureKey)
        // In place before the bundle is published, so no outcome is missed; forgotten once
        // the work ends, whichever way.
        let slot = outcomes.expect(receipt)
        let end: @Sendable () -> Void = { outcomes.forget(receipt, slot) }
        let attempt = SubmitAttempt(answer: answer)
        let failed: @Sendable (any Error) -> Void = { error in
            end()
            if let error = error as? EdgeError {
                attempt.finish(.failure(error))
                return
            }
            // As EdgeErrorMiddleware answers what the router's path throws.
            if attempt.finish(.failure(EdgeError(.unavailable, "the request cannot be served now"))) {
                logger.warning("request failed", metadata: ["path": "submit", "error": "\(ErrorPolicy.safeDescription(error))"])
            }
        }
        receipts.open(receipt) { opened in
            if case .failure(let error) = opened { return failed(error) }
            guard attempt.enter(.publishing) else { return end() }
            producer.enqueue([KafkaOutgoingMessage(topic: topic, key: key, value: value)]) { published in
                if case .failure(let error) = published { return failed(error) }
                guard attempt.enter(.waiting) else { return end() }
                slot.whenFilled { result in
                    end()
                    attempt.finish(.success(ReceiptAnswer.json(receipt: id, result: result)))
                }
            }
        }
        deadlines.after(Self.backendTimeout) { attempt.expire() }
        deadlines.after(configuration.answerWait) { slot.fill(nil) }
    }
}
