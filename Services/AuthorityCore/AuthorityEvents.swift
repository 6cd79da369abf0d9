import HallmarkEnvelope
import HallmarkRuntime

/// Makes `hallmark.security` outputs for the authority's stages.
struct AuthorityEvents: Sendable {
    let topic: String
    let instance: String
    let metrics: AuthorityMetrics

    /// An event about `message`, with an id derived from it (a redelivery makes the same id).
    func output(for message: StageMessage, _ event: SecurityEvent.Kind, _ severity: SecurityEvent.Severity,
                reason: String? = nil, serial: String? = nil, tableId: Int? = nil,
                count: Int? = nil) throws -> StageOutput {
        metrics.securityEvents.increment()
        let event = SecurityEvent(
            id: MessageID.derived(from: message.header.id, "security-\(event.rawValue)"), producedAt: Timestamp.now(),
            service: "authority", instance: instance, event: event, severity: severity, requestId: message.header.id, reason: reason,
            deviceSerial: serial, tableId: tableId, count: count)
        return try .json(topic: topic, key: serial, event)
    }
}
