import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import HallmarkSmileID

/// The signer's verify stage (DESIGN §2, SIGN-1): each request on the verify input gets a
/// verdict. Phase 1 checks the MAC and the timestamp (PBKDF2 on the worker pool, holding no
/// connection). Phase 2 claims the replay key of an accepted MAC in the message's
/// transaction, which also records the message and its verdict in the inbox: the verdict is
/// sent only after the claim committed, so a copy of the request on another replica can never
/// be accepted too, and a redelivery gets the recorded verdict, never a second one.
package struct VerifyProcessor: TransactionalStageProcessor {
    /// A message after phase 1.
    package enum Prepared: Sendable {
        case verified(StageMessage, RequestCarrier, RequestVerifier.Outcome)
        /// A rejected result given as a request: its `upstream_rejected` verdict.
        case upstream(StageOutput)
    }

    let configuration: SignerConfiguration
    let secrets: SecretStore
    let verifier: RequestVerifier
    let replay: ReplayStore
    let limiter: SecurityEventLimiter
    let events: SignerEvents
    let metrics: SignerMetrics
    let now: @Sendable () -> Date

    init(
        configuration: SignerConfiguration, secrets: SecretStore, verifier: RequestVerifier, events: SignerEvents,
        metrics: SignerMetrics, now: @escaping @Sendable () -> Date
    ) {
        self.configuration = configuration
        self.secrets = secrets
        self.verifier = verifier
        self.replay = ReplayStore(schema: configuration.schema)
        self.limiter = configuration.events.limiter()
        self.events = events
        self.metrics = metrics
        self.now = now
    }

    /// The verify input, with the carriers it takes (a sign result can be verified as it is).
    package var inputs: [StageInput] { [StageInput(topic: configuration.verifyInput, schemas: configuration.verifySchemas)] }

    package func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        metrics.recordLag(message, now: now())
        if let reason = RequestCarrier.rejection(in: message.fields) {
            metrics.rejected[.upstreamRejected]?.increment()
            let result = VerifyResult(
                reason: .upstreamRejected, secretVersion: nil, method: nil, path: nil, headers: [:], bodyB64: "",
                upstreamReason: reason)
            return .upstream(try message.reply(result, or: configuration.verifyOutput, key: SignerStages.key(message)))
        }
        let carrier = try message.decode(RequestCarrier.self)
        let outcome = try await verifier.verify(
            headers: carrier.headers, body: try carrier.body(), secrets: secrets.secrets, now: now())
        return .verified(message, carrier, outcome)
    }

    package func commit(_ batch: [Prepared], in transaction: StageTransaction) async throws -> [StageVerdict] {
        var verdicts: [StageVerdict] = []
        for item in batch {
            switch item {
            case .verified(let message, let carrier, let outcome):
                verdicts.append(.outputs(try await verdict(message, carrier, outcome, transaction: transaction)))
            case .upstream(let answer):
                verdicts.append(.outputs([answer]))
            }
        }
        return verdicts
    }

    /// Claims the replay key of a good MAC, then the verdict, and the security events
    /// ``SecurityEventLimiter`` allows for a rejection (``SignerEvents``).
    func verdict(
        _ message: StageMessage, _ carrier: RequestCarrier, _ outcome: RequestVerifier.Outcome,
        transaction: StageTransaction
    ) async throws -> [StageOutput] {
        var verdict: (reason: VerifyReason?, version: String?)
        switch outcome {
        case .rejected(let reason):
            verdict = (reason, nil)
        case .valid(let version, let replayKey, let expires):
            let fresh = try await replay.claim(
                replayKey, expires: expires, messageID: message.header.id.uuid, on: transaction.connection)
            verdict = fresh ? (nil, version) : (.replay, nil)
        }
        let result = VerifyResult(
            reason: verdict.reason, secretVersion: verdict.version, method: carrier.method, path: carrier.path,
            headers: carrier.headers,
            bodyB64: carrier.bodyB64)
        let key = SignerStages.key(message, carrier.headers)
        var outputs = [try message.reply(result, or: configuration.verifyOutput, key: key)]
        if let reason = verdict.reason {
            metrics.rejected[reason]?.increment()
            let partner = HeaderMap.value(HeaderMap.partner, in: carrier.headers) ?? ""
            let decision = limiter.record(subject: partner, eventWorthy: SignerEvents.isEventWorthy(reason), now: now())
            outputs += try events.outputs(for: message, partner: partner, reason: reason, decision: decision)
        } else {
            metrics.accepted.increment()
        }
        return outputs
    }
}
