import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime

/// Makes the signer's `hallmark.security` events (DESIGN §2: bad MACs and replays), as
/// ``SecurityEventLimiter`` allows them. An event names the partner, the reason and the
/// request's id; never the MAC, a header or the body. No device identity ever appears.
struct SignerEvents: Sendable {
    let topic: String
    let instance: String
    let windowSeconds: Int
    let metrics: SignerMetrics

    /// The events for one rejection of `message` that `decision` allows.
    func outputs(
        for message: StageMessage, partner: String, reason: VerifyReason,
        decision: SecurityEventLimiter.Decision
    ) throws -> [StageOutput] {
        try decision.events(kind: Self.kind(reason), windowSeconds: windowSeconds) {
            event(message, $0, reason: reason, partner: partner)
        }.map { try .json(topic: topic, key: Self.partnerID(partner), $0) }
    }

    /// The event kind of a rejection reason that has its own events.
    static func kind(_ reason: VerifyReason) -> SecurityEvent.Kind? {
        switch reason {
        case .badMAC: .badMAC
        case .replay: .replayedRequest
        default: nil
        }
    }

    /// True for rejections that have their own events.
    static func isEventWorthy(_ reason: VerifyReason) -> Bool { kind(reason) != nil }

    private func event(
        _ message: StageMessage, _ kind: SecurityEvent.Kind, reason: VerifyReason,
        partner: String
    ) -> Message<SecurityEvent> {
        metrics.securityEvents.increment()
        let event = SecurityEvent(
            service: "signer", instance: instance, event: kind, severity: .warning, reason: reason.rawValue,
            partnerID: Self.partnerID(partner))
        let id = MessageID.derived(from: message.header.id, "security-\(kind.rawValue)")
        return Message(event, id: id, requestID: message.header.id)
    }

    /// The summary event of a window's suppressed events: one partner's, or all partners'.
    func summary(_ s: SecurityEventLimiter.Summary) throws -> StageOutput {
        metrics.securityEvents.increment()
        let start = Int64((s.windowStart.timeIntervalSince1970 * 1000).rounded(.down))
        let event = SecurityEvent(
            service: "signer", instance: instance, event: .eventsSuppressed, severity: .warning,
            reason: s.subject == nil ? "service_limit" : "partner_limit", count: s.count,
            partnerID: s.subject.flatMap(Self.partnerID), windowSeconds: windowSeconds)
        let id = MessageID.derived(from: "\(instance)/\(s.subject.map { "p:\($0)" } ?? "all")/\(start)", "events-suppressed")
        return try .json(topic: topic, key: s.subject.flatMap(Self.partnerID), Message(event, id: id))
    }

    /// The partner id as events carry it: only one the signer can key on (1–128 printable
    /// ASCII characters); none otherwise, so an event always meets its schema.
    static func partnerID(_ partner: String) -> String? {
        ReplayKey.isValidPartner(partner) ? partner : nil
    }
}
