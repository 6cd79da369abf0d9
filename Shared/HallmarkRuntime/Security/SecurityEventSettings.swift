import Foundation
import HallmarkCore

/// How many security events a service may send (``SecurityEventLimiter``), from its
/// ``Variables`` (the signer: `HALLMARK_SIGNER_…` with `PARTNER`; the gateway:
/// `HALLMARK_GATEWAY_…` with `SUBJECT`, a partner or a session).
public struct SecurityEventSettings: Sendable, Equatable {
    public var alertRejections = 20
    public var window: TimeInterval = 60
    public var eventsPerSubject = 10
    public var eventsPerWindow = 200

    public init() {}

    /// A service's event-limit variables, each declared once: `<prefix>ALERT_REJECTIONS`,
    /// `<prefix>ALERT_WINDOW_SECONDS`, `<prefix>EVENTS_PER_<subject>`, `<prefix>EVENTS_PER_WINDOW`.
    public struct Variables: Sendable {
        public let alertRejections, window, eventsPerSubject, eventsPerWindow: Setting<Int>

        public init(prefix: String, subject: String) {
            alertRejections = .integer(
                "\(prefix)ALERT_REJECTIONS", default: 20, in: 1...1_000_000,
                doc: "rejections of one \(subject.lowercased()) per window that raise a rejection_rate event")
            window = .integer(
                "\(prefix)ALERT_WINDOW_SECONDS", default: 60, in: 1...86_400,
                doc: "the window of alerts and event limits, in seconds")
            eventsPerSubject = .integer(
                "\(prefix)EVENTS_PER_\(subject)", default: 10, in: 1...1_000_000,
                doc: "events per \(subject.lowercased()) per window; more are summed into one events_suppressed")
            eventsPerWindow = .integer(
                "\(prefix)EVENTS_PER_WINDOW", default: 200, in: 1...10_000_000,
                doc: "events per window over all subjects; more are summed into one events_suppressed")
        }

        /// Every variable, in the order `hallmark config` lists them.
        public var all: [SettingDescription] {
            [alertRejections.description, window.description, eventsPerSubject.description, eventsPerWindow.description]
        }
    }

    /// Reads the variables over the defaults; a malformed value throws, naming the variable.
    public static func fromEnvironment(
        _ env: [String: String], prefix: String, subject: String
    )
        throws(ConfigurationError) -> SecurityEventSettings
    {
        let settings = Settings(env), v = Variables(prefix: prefix, subject: subject)
        var s = SecurityEventSettings()
        s.alertRejections = try settings.value(v.alertRejections)
        s.window = TimeInterval(try settings.value(v.window))
        s.eventsPerSubject = try settings.value(v.eventsPerSubject)
        s.eventsPerWindow = try settings.value(v.eventsPerWindow)
        return s
    }

    /// A limiter with these bounds.
    public func limiter() -> SecurityEventLimiter {
        SecurityEventLimiter(threshold: alertRejections, perSubject: eventsPerSubject, total: eventsPerWindow, window: window)
    }
}
