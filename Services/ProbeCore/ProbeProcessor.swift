import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// The runtime's reference stage, for smoke tests and the runtime's own integration tests:
/// phase 1 reads the request (and may sleep, or fail on request: `always` non-transiently,
/// `reject` with a rejection, `stall` transiently forever — a stuck key); phase 2 records an effect
/// row per message (in the unit's transaction) and answers on the output topic, or on the
/// request's `reply_to` when the stage allows it.
///
/// `probe.effects` has no unique constraint on purpose: that each message's effect appears
/// once is the runtime's inbox doing its job.
package struct ProbeProcessor: StageProcessor {
    /// The probe's tables in `schema`.
    package static func migrations(schema: String) -> [PostgresMigrations.Migration] {
        [
            .init(
                version: 1, name: "effects",
                sql: """
                    CREATE TABLE \(schema).effects (
                        message_id uuid NOT NULL,
                        n integer NOT NULL,
                        instance text NOT NULL,
                        at timestamptz NOT NULL DEFAULT now()
                    );
                    """),
            // Which key each effect had and the order effects were written, for ordering tests.
            .init(
                version: 2, name: "effects_key_order",
                sql: """
                    ALTER TABLE \(schema).effects ADD COLUMN key text, ADD COLUMN seq bigserial;
                    """),
        ]
    }

    /// One request after phase 1.
    package struct Prepared: Sendable {
        let message: StageMessage
        let request: ProbeRequest
    }

    let outputTopic: String
    let instance: String
    let delay: Duration
    let schema: String
    /// The reference stage runs every unit of work: with a transaction per message or per
    /// batch it records each effect in it; without one (`.none`) it writes none.
    package let unitOfWork: StageUnitOfWork

    package init(
        outputTopic: String, instance: String, schema: String = "probe", delay: Duration = .zero,
        unitOfWork: StageUnitOfWork = .none
    ) {
        self.outputTopic = outputTopic
        self.schema = schema
        self.instance = instance
        self.delay = delay
        self.unitOfWork = unitOfWork
    }

    package func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        let request = try message.decode(ProbeRequest.self)
        if request.fail == "always" { throw ProbeFailure() }
        if request.fail == "reject" { throw StageRejection(RejectionReason("probe_rejected"), "asked to") }
        // A transient error is retried without limit: the message, and its key, never finish.
        if request.fail == "stall" { throw KafkaError(.timeout, "the probe was asked to stall") }
        if delay > .zero { try await Task.sleep(for: delay) }
        return Prepared(message: message, request: request)
    }

    package func commit(_ batch: [Prepared], context: StageCommitContext) async throws -> [StageVerdict] {
        var verdicts: [StageVerdict] = []
        for item in batch {
            let message = item.message
            if let connection = context.connection {
                try await connection.execute(
                    """
                    INSERT INTO \(unescaped: schema).effects (message_id, n, instance, key)
                    VALUES (\(message.header.id.uuid), \(item.request.n), \(instance), \(message.key))
                    """)
            }
            // A probe result carries no request id (its schema has none).
            let result = Message(
                ProbeResult(n: item.request.n, instance: instance), id: message.resultID,
                correlationID: message.correlationID)
            verdicts.append(.outputs([try .json(topic: message.replyTopic(or: outputTopic), key: message.key, result)]))
        }
        return verdicts
    }
}

/// A deliberate, non-transient processing failure (for tests of `processing_failed`).
struct ProbeFailure: Error {}
