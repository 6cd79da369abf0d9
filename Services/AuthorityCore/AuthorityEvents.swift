import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkRuntime

/// Makes `hallmark.security` outputs for the authority's stages.
///
/// No event carries both a device serial and a request id (DESIGN §2): the aggregator chooses
/// token request ids and must not link a submission to a camera by reading this topic. An
/// event naming a device therefore has no `request_id`, and no event id is derived from a
/// request id the way ``MessageID/derived(from:_:)`` derives output ids either, since anyone
/// who knows the request id could recompute that: event ids are keyed with a secret of the
/// authority's (derived from its blind-index key), so a redelivery still makes the same id.
struct AuthorityEvents: Sendable {
    let topic: String
    let instance: String
    let metrics: AuthorityMetrics
    /// HMAC key of event ids; never leaves the process.
    private let idKey: Data

    init(topic: String, instance: String, metrics: AuthorityMetrics, secrets: AuthoritySecrets) {
        self.topic = topic
        self.instance = instance
        self.metrics = metrics
        idKey = HMACSHA256.mac(key: secrets.indexKey, data: Array("hallmark-authority-security-event-id-v1".utf8))
    }

    /// An event about `message`, with an id keyed from it, or from `idSeed` (a redelivery makes
    /// the same id).
    func output(
        for message: StageMessage, _ event: SecurityEvent.Kind, _ severity: SecurityEvent.Severity,
        reason: String? = nil, serial: String? = nil, tableId: Int? = nil,
        count: Int? = nil, keyID: String? = nil, idSeed: MessageID? = nil
    ) throws -> StageOutput {
        metrics.securityEvents.increment()
        let id = eventID(idSeed ?? message.header.id, event)
        let event = SecurityEvent(
            service: "authority", instance: instance, event: event, severity: severity, reason: reason,
            deviceSerial: serial, tableId: tableId, count: count, keyID: keyID)
        // Never both a device and a request id (DESIGN §2).
        let requestID = serial == nil ? message.header.id : nil
        return try .json(topic: topic, key: serial, Message(event, id: id, requestID: requestID))
    }

    /// A UUID (version 8) from HMAC-SHA256(idKey, input id ‖ kind): unique per input and kind,
    /// and not computable without the key.
    func eventID(_ inputID: MessageID, _ kind: SecurityEvent.Kind) -> MessageID {
        MessageID.version8(HMACSHA256.mac(key: idKey, data: Array("\(inputID.text):\(kind.rawValue)".utf8)))
    }
}
