import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import HallmarkSmileID
import HallmarkZip
import Logging

/// The signer's two stages (DESIGN §2), made together so they share the secrets, the PBKDF2
/// work, the metrics and the clock: ``SignProcessor`` on the sign input and
/// ``VerifyProcessor`` on the verify input. Each runs as a stage and consumer group of its own,
/// so each scales and lags on its own; both record their messages in the one inbox of the
/// signer's schema, so an id used on one topic is `id_reused` on the other.
package struct SignerStages: Sendable {
    package let sign: SignProcessor
    package let verify: VerifyProcessor

    /// `zips` reads zip uploads (its pool is a service to run beside the stages); by default
    /// one is made from `configuration`.
    package init(
        configuration: SignerConfiguration, secrets: SecretStore, deriver: KeyDeriver, instance: String,
        zips: ZipUploadReader? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        let metrics = SignerMetrics()
        sign = SignProcessor(configuration: configuration, secrets: secrets, deriver: deriver, metrics: metrics, now: now)
        let verifier = RequestVerifier(
            deriver: deriver, window: configuration.timestampWindow,
            zips: zips ?? configuration.zipReader(service: "signer", logger: Logger(label: "signer.zip")))
        let events = SignerEvents(
            topic: configuration.securityTopic, instance: instance,
            windowSeconds: Int(configuration.events.window), metrics: metrics)
        verify = VerifyProcessor(
            configuration: configuration, secrets: secrets, verifier: verifier, events: events, metrics: metrics,
            now: now)
    }

    /// The output key: the partner id when the request has one, else the input's key.
    static func key(_ message: StageMessage, _ headers: [String: String]) -> String? {
        HeaderMap.value(HeaderMap.partner, in: headers) ?? message.key
    }

    /// The output key of a message not decoded (an upstream rejection): from its raw headers.
    static func key(_ message: StageMessage) -> String? {
        key(message, message.fields["headers"]?.object?.compactMapValues(\.string) ?? [:])
    }
}

extension SignerMetrics {
    /// Milliseconds between a request's broker timestamp and its processing.
    func recordLag(_ message: StageMessage, now: Date) {
        if let ms = message.kafka.timestampMilliseconds {
            consumerLag.record(max(0, Int64(now.timeIntervalSince1970 * 1000) - ms))
        }
    }
}
