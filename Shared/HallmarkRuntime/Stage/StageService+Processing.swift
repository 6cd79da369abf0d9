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
        var log = logger
        for (k, v) in source(of: message) { log[metadataKey: k] = v }

        guard message.value.count <= configuration.maxMessageBytes else {
            return await reject(message, id: nil, .oversized,
                                "\(message.value.count) bytes; the limit is \(configuration.maxMessageBytes)", log)
        }
        let header: EnvelopeHeader
        do {
            header = try EnvelopeHeader.parse(message.value)
        } catch {
            let e = error as? EnvelopeError ?? EnvelopeError(.invalidJSON, "unreadable message")
            return await reject(message, id: nil, e.code, e.reason, log)
        }
        log[metadataKey: "message_id"] = "\(header.id)"
        guard processor.schemas.contains(header.schema) else {
            return await reject(message, id: header.id, .unknownSchema,
                                "schema \(header.schema.prefix(80)) is not taken by \(configuration.service)", log)
        }
        let stageMessage = StageMessage(header: header, kafka: message)
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
                return await reject(message, id: header.id, rejection.reason, rejection.detail, log)
            } catch let invalid as EnvelopeError {
                return await reject(message, id: header.id, invalid.code, invalid.reason, log)
            } catch {
                attempt += 1
                let transient = ErrorPolicy.isTransient(error)
                if !transient && attempt >= configuration.maxAttempts {
                    return await reject(message, id: header.id, .processingFailed,
                                        "failed \(attempt) times: \(ErrorPolicy.safeDescription(error))", log)
                }
                if pastShutdownGrace { return .abandoned }
                metrics.retries.increment()
                log.warning("processing failed; retrying", metadata: [
                    "attempt": "\(attempt)", "transient": "\(transient)", "error": "\(ErrorPolicy.safeDescription(error))",
                ])
                try? await Task.sleep(for: backoff(attempt))
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
        if outputs.count == 1, let only = outputs.first {
            try await producer.send(topic: only.topic, key: only.key, value: only.value)
            return
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for output in outputs {
                group.addTask { try await self.producer.send(topic: output.topic, key: output.key, value: output.value) }
            }
            try await group.waitForAll()
        }
    }

    /// Publishes the message to the rejected topic, retrying until the broker takes it.
    func reject(_ message: KafkaMessage, id: String?, _ reason: RejectionReason, _ detail: String,
                _ log: Logger) async -> Outcome {
        metrics.rejected(reason).increment()
        log.notice("message rejected", metadata: ["reason": "\(reason)", "detail": "\(detail)"])
        let record = RejectedRecord(
            id: MessageID.derived(from: id ?? "\(message.topic)/\(message.partition)/\(message.offset)", "rejected"),
            producedAt: Timestamp.now(), service: configuration.service, instance: configuration.instance,
            reason: reason, detail: detail,
            source: .init(topic: message.topic, partition: message.partition, offset: message.offset),
            originalID: id, originalB64: Data(message.value).base64EncodedString())
        var attempt = 0
        while true {
            do {
                try await producer.send(topic: configuration.rejectedTopic, key: message.key,
                                        value: JSONCoding.encode(record))
                return .finished
            } catch {
                attempt += 1
                if pastShutdownGrace { return .abandoned }
                log.warning("rejected record not sent; retrying", metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
                try? await Task.sleep(for: backoff(attempt))
            }
        }
    }

    private var pastShutdownGrace: Bool {
        guard stopping.load(ordering: .acquiring) else { return false }
        return shutdownDeadline.withLock { $0.map { ContinuousClock.now >= $0 } ?? false }
    }

    private func backoff(_ attempt: Int) -> Duration {
        let factor = 1 << min(attempt - 1, 16)
        return min(configuration.initialBackoff * factor, configuration.maxBackoff)
    }
}
