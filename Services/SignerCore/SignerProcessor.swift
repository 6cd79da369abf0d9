import Foundation
import HallmarkEnvelope
import HallmarkPostgres
import HallmarkRuntime

/// The signer stage: sign requests become signed requests, verify requests become verdicts
/// (DESIGN §2). The replay claim commits on its own before the verdict is produced (see
/// ``ReplayStore/claim(partner:mac:expires:messageID:pool:)``); the runtime's inbox skips
/// redeliveries of committed messages.
public struct SignerProcessor: StageProcessor {
    public let schemas: Set<String> = [SignRequest.schemaName, VerifyRequest.schemaName]
    let configuration: SignerConfiguration
    let secrets: SecretStore
    let signer: RequestSigner
    let verifier: RequestVerifier
    let replay: ReplayStore
    let limiter: SecurityEventLimiter
    let instance: String
    /// The pool replay claims are committed through; nil runs without replay protection.
    let database: PostgresPool?
    let metrics = SignerMetrics()
    /// The clock; tests move it.
    let now: @Sendable () -> Date

    public init(configuration: SignerConfiguration, secrets: SecretStore, deriver: KeyDeriver, instance: String,
                database: PostgresPool?, now: @escaping @Sendable () -> Date = { Date() }) {
        self.database = database
        self.configuration = configuration
        self.secrets = secrets
        self.signer = RequestSigner(deriver: deriver)
        self.verifier = RequestVerifier(deriver: deriver, window: configuration.timestampWindow,
                                        maxZipBytes: configuration.maxZipBytes)
        self.replay = ReplayStore(schema: configuration.schema)
        self.limiter = SecurityEventLimiter(threshold: configuration.alertRejections, window: configuration.alertWindow)
        self.instance = instance
        self.now = now
    }

    public func process(_ message: StageMessage, context: StageContext) async throws -> [StageOutput] {
        metrics.inFlight.increment()
        defer { metrics.inFlight.decrement() }
        if let ms = message.kafka.timestampMilliseconds {
            metrics.consumerLag.record(max(0, Int64(now().timeIntervalSince1970 * 1000) - ms))
        }
        switch message.header.schema {
        case SignRequest.schemaName: return try await sign(message, context: context)
        default: return try await verify(message, context: context)
        }
    }

    func sign(_ message: StageMessage, context: StageContext) async throws -> [StageOutput] {
        let request = try message.decode(SignRequest.self)
        let body = try Self.body(request.bodyB64)
        let (headers, version) = try await signer.sign(headers: request.headers, body: body,
                                                       timestamp: request.timestamp, secrets: secrets.secrets,
                                                       now: now())
        metrics.signed.increment()
        let result = SignResult(id: MessageID.derived(from: message.header.id, "result"), producedAt: Timestamp.now(),
                                correlationID: message.header.id, requestID: message.header.id, headers: headers,
                                bodyB64: request.bodyB64, secretVersion: version)
        return [try .json(topic: configuration.signOutput, key: Self.key(message, headers), result)]
    }

    /// The body bytes; a `body_b64` that is not base64 is a schema violation.
    static func body(_ b64: String) throws -> Data {
        guard let data = Data(base64Encoded: b64) else {
            throw StageRejection(.schemaViolation, "body_b64 is not base64")
        }
        return data
    }

    /// The output key: the partner id when the request has one, else the input's key.
    static func key(_ message: StageMessage, _ headers: [String: String]) -> String? {
        HeaderMap.value(HeaderMap.partner, in: headers)
            ?? message.kafka.key.map { String(decoding: $0, as: UTF8.self) }
    }
}
