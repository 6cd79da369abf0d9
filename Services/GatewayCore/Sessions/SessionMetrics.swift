import HallmarkCrypto
import HallmarkMessages
import Metrics

/// The E2EE-1 stage's metrics, created once with fixed dimensions.
final class SessionMetrics: Sendable {
    /// Handshakes by outcome (`complete`, `closed` for a close, or the rejection reason).
    let handshakes: [String: Counter]
    /// Messages by direction and outcome (`decrypted`/`encrypted` or the rejection reason:
    /// `replay` and `counter_jump` are replays, `authentication_failed` tampering).
    let messages: [InvisoDirection: [String: Counter]]

    init() {
        let dims = [("service", "gateway")]
        handshakes = Dictionary(
            uniqueKeysWithValues: (["complete", "closed"] + E2EEHandshakeResult.Reason.allCases.map(\.rawValue)).map {
                ($0, Counter(label: "hallmark_gateway_e2ee_handshakes_total", dimensions: dims + [("outcome", $0)]))
            })
        func counters(_ direction: String, _ outcomes: [String]) -> [String: Counter] {
            Dictionary(
                uniqueKeysWithValues: outcomes.map {
                    (
                        $0,
                        Counter(
                            label: "hallmark_gateway_e2ee_messages_total",
                            dimensions: dims + [("direction", direction), ("outcome", $0)])
                    )
                })
        }
        messages = [
            .clientToGateway: counters("inbound", ["decrypted"] + E2EEPlaintext.Reason.allCases.map(\.rawValue)),
            .gatewayToClient: counters("outbound", ["encrypted"] + E2EEOutbound.Reason.allCases.map(\.rawValue)),
        ]
    }
}
