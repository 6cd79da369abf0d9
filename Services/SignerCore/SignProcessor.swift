import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import HallmarkSmileID

/// The signer's sign stage (DESIGN §2, SIGN-1): each request on the sign input is signed in
/// phase 1, on the PBKDF2 worker pool with no connection held. Phase 2 writes nothing of its
/// own, but runs in the message's transaction, which records it and its result in the inbox:
/// a redelivery gets its first signature again, and an id used before for other bytes, or on
/// the verify topic, is answered `id_reused` (DESIGN §2, ids).
package struct SignProcessor: TransactionalStageProcessor {
    /// A message after phase 1.
    package enum Prepared: Sendable {
        case signed(StageMessage, SignResult)
        /// A rejected result given as a request (a chain's earlier stage refused it): its
        /// `upstream_rejected` answer.
        case upstream(StageOutput)
    }

    let configuration: SignerConfiguration
    let secrets: SecretStore
    let signer: RequestSigner
    let metrics: SignerMetrics
    let now: @Sendable () -> Date

    init(
        configuration: SignerConfiguration, secrets: SecretStore, deriver: KeyDeriver, metrics: SignerMetrics,
        now: @escaping @Sendable () -> Date
    ) {
        self.configuration = configuration
        self.secrets = secrets
        self.signer = RequestSigner(deriver: deriver)
        self.metrics = metrics
        self.now = now
    }

    /// The sign input, with the carriers it takes.
    package var inputs: [StageInput] { [StageInput(topic: configuration.signInput, schemas: configuration.signSchemas)] }

    package func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        metrics.recordLag(message, now: now())
        if let reason = RequestCarrier.rejection(in: message.fields) {
            let result = CarrierRejection<SignResult>(
                code: RequestCarrier.upstreamRejected, upstreamReason: reason, counting: metrics.signRejections)
            return .upstream(try message.reply(result, or: configuration.signOutput, key: SignerStages.key(message)))
        }
        let carrier = try message.decode(RequestCarrier.self)
        let (headers, version) = try await signer.sign(
            headers: carrier.headers, body: try carrier.body(), timestamp: message.fields["timestamp"]?.string,
            secrets: secrets.secrets, now: now())
        metrics.signed.increment()
        return .signed(
            message,
            SignResult(
                method: carrier.method, path: carrier.path, headers: headers,
                bodyB64: carrier.bodyB64, secretVersion: version))
    }

    package func commit(_ batch: [Prepared], in transaction: StageTransaction) async throws -> [StageVerdict] {
        try batch.map { item in
            switch item {
            case .signed(let message, let result):
                .outputs([
                    try message.reply(result, or: configuration.signOutput, key: SignerStages.key(message, result.headers))
                ])
            case .upstream(let answer): .outputs([answer])
            }
        }
    }

    /// A sign request refused with a readable id (a broken envelope or body, too large, an id
    /// already used, failing) is answered on the sign result topic in its rejected form, with
    /// the runtime's code, echoing neither headers nor body.
    package func answer(refused message: RefusedMessage) throws -> [StageOutput]? {
        let result = CarrierRejection<SignResult>(code: message.resultReason, counting: metrics.signRejections)
        return [try message.reply(result, or: configuration.signOutput)]
    }
}
