import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import Metrics

/// Makes the gateway's `hallmark.security` events (DESIGN §2), as its
/// ``SecurityEventLimiter`` allows them:
/// - E2EE-1 inbound messages: a replayed counter (`replayed_message`), a counter jump
///   (`counter_jump`) and a message that failed authentication (`tampered_message`), about the
///   session;
/// - ENC-1 decrypts: an envelope that failed authentication (`tampered_payload`), about the
///   partner.
///
/// Every rejection of a session or partner counts toward its `rejection_rate` alert. An event
/// names the session or partner, the reason and the request's id; never a key, a ciphertext,
/// a header or plaintext.
package struct GatewayEvents: Sendable {
    let topic: String
    let instance: String
    let limiter: SecurityEventLimiter
    let windowSeconds: Int
    let sent: Counter
    let now: @Sendable () -> Date

    /// Events to `topic` from `instance`, limited by `settings`, on the clock `now`.
    package init(topic: String, instance: String, settings: SecurityEventSettings, now: @escaping @Sendable () -> Date) {
        self.topic = topic
        self.instance = instance
        limiter = settings.limiter()
        windowSeconds = Int(settings.window)
        sent = Counter(label: "hallmark_gateway_security_events_total", dimensions: [("service", "gateway")])
        self.now = now
    }

    /// What a rejection is about: the limiter's subject, and the event field naming it.
    enum Subject: Equatable {
        case session(String)
        case partner(String?)

        /// The limiter's key (sessions and partners never share one).
        var key: String {
            switch self {
            case .session(let id): "session:" + id
            case .partner(let id): "partner:" + (id ?? "")
            }
        }

        init(key: String) {
            let id = String(key.dropFirst(8))  // "session:" and "partner:" are both 8 long
            self = key.hasPrefix("session:") ? .session(id) : .partner(id.isEmpty ? nil : id)
        }
    }

    /// The events for a rejected E2EE-1 inbound message.
    func inbound(_ message: StageMessage, session: String, reason: E2EEPlaintext.Reason) throws -> [StageOutput] {
        let kind: SecurityEvent.Kind? =
            switch reason {
            case .replay: .replayedMessage
            case .counterJump: .counterJump
            case .authenticationFailed: .tamperedMessage
            default: nil
            }
        return try outputs(message, .session(session), kind, reason: reason.rawValue)
    }

    /// The events for a rejected ENC-1 decrypt; `partner` from the request's headers.
    func decrypt(_ message: StageMessage, partner: String?, reason: DecryptResult.Reason) throws -> [StageOutput] {
        // Only a partner id the schema allows; none otherwise, so an event always meets it.
        let partner = partner.flatMap { Redaction.isPrintableASCII($0, limit: 128) ? $0 : nil }
        return try outputs(
            message, .partner(partner), reason == .authenticationFailed ? .tamperedPayload : nil,
            reason: reason.rawValue)
    }

    private func outputs(
        _ message: StageMessage, _ subject: Subject, _ kind: SecurityEvent.Kind?,
        reason: String
    ) throws -> [StageOutput] {
        let decision = limiter.record(subject: subject.key, eventWorthy: kind != nil, now: now())
        return try decision.events(kind: kind, windowSeconds: windowSeconds) {
            event(
                $0, subject, id: MessageID.derived(from: message.header.id, "security-\($0.rawValue)"),
                requestID: message.header.id, reason: reason)
        }.map { try .json(topic: topic, key: Self.key(subject), $0) }
    }

    /// The summary event of a window's suppressed events: one subject's, or all subjects'.
    func summary(_ s: SecurityEventLimiter.Summary) throws -> StageOutput {
        let start = Int64((s.windowStart.timeIntervalSince1970 * 1000).rounded(.down))
        let subject = s.subject.map(Subject.init(key:))
        var event = event(
            .eventsSuppressed, subject,
            id: MessageID.derived(from: "\(instance)/\(s.subject ?? "all")/\(start)", "events-suppressed"),
            requestID: nil, reason: s.subject == nil ? "service_limit" : "subject_limit")
        event.count = s.count
        event.windowSeconds = windowSeconds
        return try .json(topic: topic, key: subject.flatMap(Self.key), event)
    }

    private func event(
        _ kind: SecurityEvent.Kind, _ subject: Subject?, id: MessageID, requestID: MessageID?,
        reason: String
    ) -> Message<SecurityEvent> {
        sent.increment()
        var event = Message(
            SecurityEvent(service: "gateway", instance: instance, event: kind, severity: .warning, reason: reason),
            id: id, requestID: requestID)
        switch subject {
        case .session(let id)?: event.sessionID = id
        case .partner(let id)?: event.partnerID = id
        case nil: break
        }
        return event
    }

    /// The Kafka key: the session or partner, so one subject's events stay in order.
    static func key(_ subject: Subject) -> String? {
        switch subject {
        case .session(let id): id
        case .partner(let id): id
        }
    }
}
