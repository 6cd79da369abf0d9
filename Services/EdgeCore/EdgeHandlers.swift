import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkRuntime
import Hummingbird
import NIOCore

/// What the edge's routes do, over its parts: the answer router, the receipts, their outcomes
/// and the producer.
package struct EdgeHandlers: Sendable {
    let configuration: EdgeConfiguration
    let answers: AnswerRouter
    let receipts: ReceiptStore
    let outcomes: ReceiptOutcomes
    let producer: any StageSink
    let verifications: Verifications
    /// How long the broker or the database may take before a request is answered 503.
    static let backendTimeout = Duration.seconds(5)

    package init(
        configuration: EdgeConfiguration, answers: AnswerRouter, receipts: ReceiptStore, outcomes: ReceiptOutcomes,
        producer: any StageSink, verifications: Verifications
    ) {
        self.configuration = configuration
        self.answers = answers
        self.receipts = receipts
        self.outcomes = outcomes
        self.producer = producer
        self.verifications = verifications
    }

    /// Whether the edge can hear answers and outcomes (readiness).
    var isReady: Bool { answers.isReady && outcomes.isReady }

    /// The request's body, bounded in size (413, told by `Content-Length` before reading when
    /// it is given) and in time (408).
    func body(of request: Request) async throws -> [UInt8] {
        let limit = configuration.maxBodyBytes
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw EdgeError(.tooLarge, "the body is larger than \(limit) bytes")
        }
        let body = request.body
        let buffer = try await Deadline.run(
            configuration.readTimeout, else: EdgeError(.requestTimeout, "the body did not arrive in time")
        ) {
            // A body with no length (chunked) past the limit: NIO's collect says so with its own
            // error, Hummingbird's with an HTTPError.
            do { return try await body.collect(upTo: limit) } catch let error
                where error is NIOTooManyBytesError || (error as? HTTPError)?.status == .contentTooLarge
            {
                throw EdgeError(.tooLarge, "the body is larger than \(limit) bytes")
            }
        }
        return Array(buffer: buffer)
    }

    /// Publishes the bundle and answers its receipt, with the outcome when it comes within the
    /// configured wait.
    func submit(_ body: [UInt8], kind: CameraBundle.Kind = .token) async throws -> [UInt8] {
        let (message, value): (Message<Submission>, [UInt8])
        do { (message, value) = try CameraBundle.written(body, kind: kind) } catch { throw EdgeError(error) }
        guard let receipt = UUID(text: message.id.text) else { throw EdgeError(.malformed, "no receipt id") }
        let (receipts, producer, topic) = (self.receipts, self.producer, configuration.submissions)
        try await Deadline.run(Self.backendTimeout, else: EdgeError(.unavailable, "the receipt store is unavailable")) {
            try await receipts.open(receipt)
        }
        let key = message.body.captureKey
        let result = try await outcomes.wait(for: receipt, timeout: configuration.answerWait) {
            try await Deadline.run(Self.backendTimeout, else: EdgeError(.unavailable, "the broker is unavailable")) {
                try await producer.send([KafkaOutgoingMessage(topic: topic, key: key, value: value)])
            }
        }
        return ReceiptAnswer.json(receipt: message.id, result: result)
    }

    /// A receipt's outcome (404 when the edge never issued it, or it was swept).
    func submission(_ text: String) async throws -> [UInt8] {
        guard let id = UUID(text: text) else { throw EdgeError(.notFound, "no such receipt", field: "receipt_id") }
        let receipts = self.receipts
        let found = try await Deadline.run(
            Self.backendTimeout, else: EdgeError(.unavailable, "the receipt store is unavailable")
        ) { try await receipts.lookup(id) }
        switch found {
        case nil: throw EdgeError(.notFound, "no such receipt", field: "receipt_id")
        case .pending?: return ReceiptAnswer.json(receipt: MessageID(id), result: nil)
        case .answered(let result)?: return ReceiptAnswer.json(receipt: MessageID(id), result: result)
        }
    }

    /// The verification of `text` (an image hash, either case): the rendered answer.
    func verify(_ text: String) async throws -> Verifications.Answer {
        try await verifications.answer(for: try Self.requireImageHash(text))
    }

    /// The log's latest signed checkpoint (nil before its first).
    func head() async throws -> SignedCheckpoint? {
        try await verifications.head()
    }

    /// `text` as an image hash (64 hex digits in either case, lowered); 400 naming
    /// `image_hash` when it is none.
    static func requireImageHash(_ text: some StringProtocol) throws -> String {
        guard let hash = imageHash(text) else {
            throw EdgeError(.invalidField, "an image hash is 64 hex digits", field: "image_hash")
        }
        return hash
    }

    /// `text` as the verification cache's key (64 hex digits in either case, lowered), or nil
    /// when it is no image hash.
    static func imageHash(_ text: some StringProtocol) -> String? {
        let hash = text.lowercased()
        return hash.utf8.count == 64 && (try? Hex.decode(hash, length: 32)) != nil ? hash : nil
    }

    /// Asks the log `question` over the broker and waits for its answer.
    static func ask(
        _ question: LogVerifyRequest, answers: AnswerRouter, producer: any StageSink, configuration: EdgeConfiguration
    ) async throws -> [UInt8]? {
        let id = UUID().lowercasedText
        return try await request(
            id, value: try JSONCoding.encode(Message(question, correlationID: id)), to: configuration.verifyRequests,
            answers: answers, producer: producer, timeout: configuration.verifyWait)
    }

    /// Publishes `value` (a message whose `correlation_id` is `id`) on `topic` and waits up to
    /// `timeout` for the answer that names it; nil when none came in time, `503` when the
    /// broker does not acknowledge within the backend timeout.
    static func request(
        _ id: String, value: [UInt8], to topic: String, key: [UInt8]? = nil, answers: AnswerRouter, producer: any StageSink,
        timeout: Duration
    ) async throws -> [UInt8]? {
        try await answers.request(id, timeout: timeout) {
            try await Deadline.run(backendTimeout, else: EdgeError(.unavailable, "the broker is unavailable")) {
                try await producer.send([KafkaOutgoingMessage(topic: topic, key: key, value: value)])
            }
        }
    }
}
