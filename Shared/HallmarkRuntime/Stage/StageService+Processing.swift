import Foundation
import HallmarkEnvelope
import HallmarkKafka
import HallmarkPostgres
import Logging

extension StageService {
    enum Outcome { case finished, abandoned }

    /// Runs one message to an end: processed, duplicate, or rejected. Transient failures are
    /// retried with backoff; only shutdown past its grace period leaves a message unfinished.
    func process(_ message: KafkaMessage) async -> Outcome {
        let stageMessage: StageMessage
        switch core.intake(message, schemas: processor.schemas) {
        case .success(let m): stageMessage = m
        case .failure(let refusal): return await reject(message, refusal, core.logger(for: message, id: refusal.id))
        }
        let header = stageMessage.header
        let log = core.logger(for: message, id: header.id)
        var attempt = 0
        while true {
            do {
                let fresh = try await runOnce(stageMessage, attempt: attempt, logger: log)
                if fresh { metrics.processed.increment() } else {
                    metrics.duplicates.increment()
                    log.info("duplicate skipped")
                }
                return .finished
            } catch let rejection as StageRejection {
                return await reject(message, .init(id: header.id, reason: rejection.reason, detail: rejection.detail), log)
            } catch let invalid as EnvelopeError {
                return await reject(message, .init(id: header.id, reason: invalid.code, detail: invalid.reason), log)
            } catch {
                attempt += 1
                let transient = ErrorPolicy.isTransient(error)
                if !transient && attempt >= configuration.maxAttempts {
                    return await reject(message, .init(id: header.id, reason: .processingFailed,
                                        detail: "failed \(attempt) times: \(ErrorPolicy.safeDescription(error))"), log)
                }
                if core.pastShutdownGrace { return .abandoned }
                metrics.retries.increment()
                log.warning("processing failed; retrying", metadata: [
                    "attempt": "\(attempt)", "transient": "\(transient)", "error": "\(ErrorPolicy.safeDescription(error))",
                ])
                try? await Task.sleep(for: core.backoff(attempt))
            }
        }
    }

    /// One attempt. Returns false when the message id was already processed.
    private func runOnce(_ message: StageMessage, attempt: Int, logger: Logger) async throws -> Bool {
        guard let database else {
            let outputs = try await processor.process(
                message, context: StageContext(connection: nil, logger: logger, attempt: attempt))
            try await send(outputs)
            return true
        }
        return try await database.pool.transaction { connection in
            let id = UUID(uuidString: message.header.id)!  // checked by EnvelopeHeader.parse
            let inserted = try await connection.execute("""
                INSERT INTO \(unescaped: database.schema).hallmark_inbox (message_id, source_topic)
                VALUES (\(id), \(message.kafka.topic)) ON CONFLICT DO NOTHING
                """)
            guard inserted == 1 else { return false }
            let outputs = try await processor.process(
                message, context: StageContext(connection: connection, logger: logger, attempt: attempt))
            try await send(outputs)
            return true
        }
    }

    /// Sends all outputs at once and waits for every acknowledgement.
    func send(_ outputs: [StageOutput]) async throws {
        try await core.producer.send(outputs)
    }

    /// Publishes the message to the rejected topic, retrying until the broker takes it.
    func reject(_ message: KafkaMessage, _ refusal: StageCore.Refusal, _ log: Logger) async -> Outcome {
        await core.deliver([core.rejectedOutput(message, refusal, log)], log) ? .finished : .abandoned
    }
}
