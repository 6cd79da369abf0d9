import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import HallmarkSmileID

/// The gateway's ENC-1 stage (DESIGN §1–2): requests on the encrypt input come out encrypted
/// (or passed through, saying why) as request carriers ready for the signer; requests on the
/// decrypt input come out decrypted, or as a typed `rejected` result with no plaintext at all.
///
/// All the work is phase 1 (PBKDF2 on the worker pool, AES-GCM); there are no effects to
/// commit, so the stage runs without a transaction. A redelivered request is encrypted again
/// under the same request id (its result id is derived from the request's, so a consumer can
/// drop the copy); the two envelopes differ only in their random IVs.
package struct EnvelopeProcessor: StageProcessor {
    package enum Prepared: Sendable {
        case encrypted(StageMessage, EncryptResult)
        /// A rejected result given to the encrypt input: answered `upstream_rejected`.
        case upstream(StageMessage, CarrierRejection<EncryptResult>)
        /// With the security events its rejection raised, if any.
        case decrypted(StageMessage, DecryptResult, events: [StageOutput])
    }

    let configuration: GatewayConfiguration
    let secrets: SecretStore
    let encryptor: PayloadEncryptor
    let decryptor: PayloadDecryptor
    let metrics = GatewayMetrics()
    let events: GatewayEvents
    /// The clock; tests move it.
    let now: @Sendable () -> Date

    package init(
        configuration: GatewayConfiguration, secrets: SecretStore, deriver: KeyDeriver, events: GatewayEvents,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.events = events
        self.secrets = secrets
        encryptor = PayloadEncryptor(deriver: deriver, policy: configuration.policy)
        decryptor = PayloadDecryptor(deriver: deriver, window: configuration.timestampWindow)
        self.now = now
    }

    /// The stage's inputs: each topic with the carriers it takes.
    package var inputs: [StageInput] {
        [
            StageInput(topic: configuration.encryptInput, schemas: configuration.encryptSchemas),
            StageInput(topic: configuration.decryptInput, schemas: configuration.decryptSchemas),
        ]
    }

    package func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        // A rejected result given as a request (a chain's earlier stage refused it, a verify
        // stage found a bad MAC) holds nothing to encrypt or decrypt: it is answered
        // `upstream_rejected`, never processed.
        if let reason = RequestCarrier.rejection(in: message.fields) {
            if message.kafka.topic == configuration.encryptInput {
                return .upstream(
                    message,
                    CarrierRejection(
                        code: RequestCarrier.upstreamRejected, upstreamReason: reason, counting: metrics.encryptRejections))
            }
            metrics.decryptRejected[.upstreamRejected]?.increment()
            return .decrypted(
                message,
                DecryptResult(reason: .upstreamRejected, upstreamReason: reason), events: [])
        }
        let carrier = try message.decode(RequestCarrier.self)
        let body = try carrier.body()
        if message.kafka.topic == configuration.encryptInput {
            let output = try await encryptor.encrypt(
                path: carrier.path, headers: carrier.headers, body: body, requestID: message.header.id.text,
                timestamp: message.fields["timestamp"]?.string, secrets: secrets.secrets, now: now())
            switch output.decision {
            case .encrypted(let type):
                metrics.encrypted[type]?.increment()
                metrics.encryptedBytes.increment(by: body.count)
            case .passedThrough(let reason):
                metrics.passedThrough[reason]?.increment()
            }
            return .encrypted(
                message,
                EncryptResult(
                    decision: output.decision, headers: output.headers,
                    bodyB64: output.body.base64EncodedString(), method: carrier.method, path: carrier.path))
        }
        let result: DecryptResult
        var raised: [StageOutput] = []
        switch try await decryptor.decrypt(headers: carrier.headers, body: body, secrets: secrets.secrets, now: now()) {
        case .decrypted(let headers, let plaintext):
            metrics.decrypted.increment()
            metrics.decryptedBytes.increment(by: plaintext.count)
            result = DecryptResult(
                headers: headers,
                bodyB64: plaintext.base64EncodedString(), method: carrier.method, path: carrier.path)
        case .rejected(let reason):
            metrics.decryptRejected[reason]?.increment()
            result = DecryptResult(reason: reason)
            raised = try events.decrypt(
                message, partner: HeaderMap.value(HeaderMap.partner, in: carrier.headers),
                reason: reason)
        }
        return .decrypted(message, result, events: raised)
    }

    package func commit(_ batch: [Prepared], context: StageCommitContext) async throws -> [StageVerdict] {
        try batch.map { item in
            switch item {
            case .encrypted(let message, let result):
                .outputs([try message.reply(result, or: configuration.encryptOutput, key: Self.key(message, result.headers))])
            case .upstream(let message, let result):
                .outputs([try message.reply(result, or: configuration.encryptOutput)])
            case .decrypted(let message, let result, let events):
                .outputs(
                    [try message.reply(result, or: configuration.decryptOutput, key: Self.key(message, result.headers ?? [:]))]
                        + events)
            }
        }
    }

    /// The output key: the partner id when the request has one, else the input's key.
    static func key(_ message: StageMessage, _ headers: [String: String]) -> String? {
        HeaderMap.value(HeaderMap.partner, in: headers) ?? message.key
    }
}
