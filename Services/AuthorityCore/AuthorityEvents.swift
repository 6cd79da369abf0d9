import HallmarkCore
import HallmarkMessages
import HallmarkRuntime

/// Makes `hallmark.security` outputs for the authority's stages.
struct AuthorityEvents: Sendable {
    let topic: String
    let instance: String
    let metrics: AuthorityMetrics

    /// An event about `message`, with an id derived from it (a redelivery makes the same id).
    /// An event naming a device carries no request id (DESIGN §2): the aggregator chooses
    /// request ids, and must not link a submission to a camera by reading this topic.
    func output(for message: StageMessage, _ event: SecurityEvent.Kind, _ severity: SecurityEvent.Severity,
                reason: String? = nil, serial: String? = nil, tableId: Int? = nil,
                count: Int? = nil) throws -> StageOutput {
        metrics.securityEvents.increment()
        let event = SecurityEvent(
            id: MessageID.derived(from: message.header.id, "security-\(event.rawValue)"), producedAt: Timestamp.now(),
            service: "authority", instance: instance, event: event, severity: severity,
            requestId: serial == nil ? message.header.id : nil, reason: reason,
            deviceSerial: serial, tableId: tableId, count: count)
        return try .json(topic: topic, key: serial, event)
    }
}
