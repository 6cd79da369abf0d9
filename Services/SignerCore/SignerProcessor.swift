import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import HallmarkSmileID
import HallmarkZip
import Logging

/// The signer stage (DESIGN §2): requests on the sign input are signed, requests on the verify
/// input get a verdict. Any request carrier the input is configured for is taken, so a sign
/// result can be verified as it is.
///
/// Phase 1 does the PBKDF2 work (on the worker pool, holding no connection). Phase 2 claims
/// the replay key of an accepted MAC in the message's transaction, which also records the
/// message and its verdict in the inbox (``StageUnitOfWork/perMessage``): the verdict is sent
/// only after the claim committed, so a copy of the request on another replica can never be
/// accepted too, and a redelivery gets the recorded verdict, never a second one.
public struct SignerProcessor: TransactionalStageProcessor {
    /// A message after phase 1.
    public enum Prepared: Sendable {
        case signed(StageMessage, SignResult)
        /// A rejected result given as a request (a chain's earlier stage refused it): its
        /// `upstream_rejected` answer.
        case upstream(StageMessage, StageOutput)
        case verified(StageMessage, RequestCarrier, RequestVerifier.Outcome)
    }

    let configuration: SignerConfiguration
    let secrets: SecretStore
    let signer: RequestSigner
    let verifier: RequestVerifier
    let replay: ReplayStore
    let limiter: SecurityEventLimiter
    let events: SignerEvents
    let instance: String
    let metrics: SignerMetrics
    /// The clock; tests move it.
    let now: @Sendable () -> Date

    /// `zips` reads zip uploads (its pool is a service to run beside the stage); by default
    /// one is made from `configuration`.
    public init(
        configuration: SignerConfiguration, secrets: SecretStore, deriver: KeyDeriver, instance: String,
        zips: ZipUploadReader? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.secrets = secrets
        self.signer = RequestSigner(deriver: deriver)
        self.verifier = RequestVerifier(
            deriver: deriver, window: configuration.timestampWindow,
            zips: zips
                ?? configuration.zipReader(
                    service: "signer",
                    logger: Logger(label: "signer.zip")))
        self.replay = ReplayStore(schema: configuration.schema)
        self.limiter = configuration.events.limiter()
        self.instance = instance
        self.now = now
        let metrics = SignerMetrics()
        self.metrics = metrics
        self.events = SignerEvents(
            topic: configuration.securityTopic, instance: instance,
            windowSeconds: Int(configuration.events.window), metrics: metrics)
    }

    /// The stage's inputs: each topic with the carriers it takes.
    public var inputs: [StageInput] {
        [
            StageInput(topic: configuration.signInput, schemas: configuration.signSchemas),
            StageInput(topic: configuration.verifyInput, schemas: configuration.verifySchemas),
        ]
    }

    public func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        if let ms = message.kafka.timestampMilliseconds {
            metrics.consumerLag.record(max(0, Int64(now().timeIntervalSince1970 * 1000) - ms))
        }
        if let reason = RequestCarrier.rejection(in: message.fields) { return .upstream(message, try upstream(message, reason)) }
        let carrier = try message.decode(RequestCarrier.self)
        if message.kafka.topic == configuration.signInput { return try await sign(message, carrier) }
        return .verified(message, carrier, try await verify(message, carrier))
    }

    public func commit(_ batch: [Prepared], in transaction: StageTransaction) async throws -> [StageVerdict] {
        var verdicts: [StageVerdict] = []
        for item in batch {
            switch item {
            case .signed(let message, let result):
                verdicts.append(
                    .outputs([
                        try .json(
                            topic: message.replyTopic(or: configuration.signOutput),
                            key: Self.key(message, result.headers), result)
                    ]))
            case .upstream(_, let answer):
                verdicts.append(.outputs([answer]))
            case .verified(let message, let carrier, let outcome):
                verdicts.append(.outputs(try await verdict(message, carrier, outcome, transaction: transaction)))
            }
        }
        return verdicts
    }

    func sign(_ message: StageMessage, _ carrier: RequestCarrier) async throws -> Prepared {
        let timestamp = message.fields["timestamp"]?.string
        let body = try carrier.body()
        let (headers, version) = try await signer.sign(
            headers: carrier.headers, body: body, timestamp: timestamp,
            secrets: secrets.secrets, now: now())
        metrics.signed.increment()
        let result = SignResult(
            id: message.resultID, producedAt: Timestamp.now(),
            correlationID: message.correlationID, requestID: message.header.id,
            method: carrier.method, path: carrier.path, headers: headers,
            bodyB64: carrier.bodyB64, secretVersion: version)
        return .signed(message, result)
    }

    /// The output key: the partner id when the request has one, else the input's key.
    static func key(_ message: StageMessage, _ headers: [String: String]) -> String? {
        HeaderMap.value(HeaderMap.partner, in: headers) ?? message.key
    }
}
