import HallmarkMessages
import HallmarkRuntime
import Metrics

/// The signer's metrics, created once with fixed dimensions.
final class SignerMetrics: Sendable {
    let signed: Counter
    let accepted: Counter
    let rejected: [VerifyReason: Counter]
    let securityEvents: Counter
    /// Sign requests answered `rejected`, by reason (the sign result schema's codes).
    let signRejections: [SignResult.RejectionReason: Counter]
    let inFlight: Meter
    /// Milliseconds between a request's broker timestamp and its processing.
    let consumerLag: Recorder

    init() {
        let dims = [("service", "signer")]
        signed = Counter(label: "hallmark_signer_signed_total", dimensions: dims)
        accepted = Counter(label: "hallmark_signer_accepted_total", dimensions: dims)
        rejected = Counter.perCase(VerifyReason.self, label: "hallmark_signer_rejected_total", dimensions: dims)
        signRejections = Counter.perCase(
            SignResult.RejectionReason.self, label: "hallmark_signer_sign_rejected_total", dimensions: dims)
        securityEvents = Counter(label: "hallmark_signer_security_events_total", dimensions: dims)
        inFlight = Meter(label: "hallmark_signer_in_flight", dimensions: dims)
        consumerLag = Recorder(label: "hallmark_signer_consumer_lag_ms", dimensions: dims)
    }
}
