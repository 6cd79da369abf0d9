import Foundation
import HallmarkEnvelope
import HallmarkPostgres
import HallmarkRuntime

/// A reference stage for smoke tests and the runtime's own integration tests: it records an
/// effect row per message (in the message's transaction) and answers on its output topic.
///
/// `probe.effects` has no unique constraint on purpose: that each message's effect appears
/// once is the runtime's inbox doing its job.
public struct ProbeProcessor: StageProcessor {
    public static let requestSchema = "hallmark.probe.request.v1"
    public static let resultSchema = "hallmark.probe.result.v1"

    struct Request: Decodable {
        let n: Int
        let fail: String?
    }

    struct Result: Encodable {
        var schema = ProbeProcessor.resultSchema
        let id: String
        let producedAt: String
        let correlationID: String
        let n: Int
        let instance: String

        enum CodingKeys: String, CodingKey {
            case schema, id, n, instance
            case producedAt = "produced_at"
            case correlationID = "correlation_id"
        }
    }

    /// The probe's tables in `schema`.
    public static func migrations(schema: String) -> [PostgresMigrations.Migration] {
        [.init(version: 1, name: "effects", sql: """
            CREATE TABLE \(schema).effects (
                message_id uuid NOT NULL,
                n integer NOT NULL,
                instance text NOT NULL,
                at timestamptz NOT NULL DEFAULT now()
            );
            """),
         // Which key each effect had and the order effects were written, for ordering tests.
         .init(version: 2, name: "effects_key_order", sql: """
            ALTER TABLE \(schema).effects ADD COLUMN key text, ADD COLUMN seq bigserial;
            """)]
    }

    public let schemas: Set<String> = [Self.requestSchema]
    let outputTopic: String
    let instance: String
    let delay: Duration
    let schema: String

    public init(outputTopic: String, instance: String, schema: String = "probe", delay: Duration = .zero) {
        self.outputTopic = outputTopic
        self.schema = schema
        self.instance = instance
        self.delay = delay
    }

    public func process(_ message: StageMessage, context: StageContext) async throws -> [StageOutput] {
        let request = try message.decode(Request.self)
        guard request.n >= 0 else { throw StageRejection(.schemaViolation, "n must not be negative") }
        if request.fail == "always" { throw ProbeFailure() }
        if delay > .zero { try await Task.sleep(for: delay) }
        if let connection = context.connection {
            let id = UUID(uuidString: message.header.id)!
            let key = message.kafka.key.map { String(decoding: $0, as: UTF8.self) }
            try await connection.execute("""
                INSERT INTO \(unescaped: schema).effects (message_id, n, instance, key)
                VALUES (\(id), \(request.n), \(instance), \(key))
                """)
        }
        let result = Result(id: MessageID.derived(from: message.header.id, "result"), producedAt: Timestamp.now(),
                            correlationID: message.header.id, n: request.n, instance: instance)
        return [try .json(topic: outputTopic, key: message.kafka.key.map { String(decoding: $0, as: UTF8.self) }, result)]
    }
}

/// A deliberate, non-transient processing failure (for tests of `processing_failed`).
struct ProbeFailure: Error {}
