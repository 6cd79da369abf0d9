import Foundation
import HallmarkCore

/// How many security events a service may send (``SecurityEventLimiter``), from
/// `<PREFIX>ALERT_REJECTIONS`, `<PREFIX>ALERT_WINDOW_SECONDS`, `<PREFIX>EVENTS_PER_<SUBJECT>`
/// and `<PREFIX>EVENTS_PER_WINDOW` (the signer: `HALLMARK_SIGNER_…` with `PARTNER`; the
/// gateway: `HALLMARK_GATEWAY_…` with `SUBJECT`, a partner or a session).
///
/// | variable | default | meaning |
/// |---|---|---|
/// | `…ALERT_REJECTIONS` | 20 | rejections of one subject per window that raise a `rejection_rate` event |
/// | `…ALERT_WINDOW_SECONDS` | 60 | the window of alerts and event limits |
/// | `…EVENTS_PER_<SUBJECT>` | 10 | events of their own per subject per window; more are summed into one `events_suppressed` |
/// | `…EVENTS_PER_WINDOW` | 200 | events per window over all subjects; more are summed into one `events_suppressed` |
public struct SecurityEventSettings: Sendable, Equatable {
    public var alertRejections = 20
    public var window: TimeInterval = 60
    public var eventsPerSubject = 10
    public var eventsPerWindow = 200

    public init() {}

    /// Reads the variables over the defaults; a malformed value throws, naming the variable.
    public static func fromEnvironment(
        _ env: [String: String], prefix: String, subject: String
    )
        throws(ConfigurationError) -> SecurityEventSettings
    {
        let settings = Settings(env)
        var s = SecurityEventSettings()
        s.alertRejections = try settings.integer("\(prefix)ALERT_REJECTIONS", default: s.alertRejections, in: 1...1_000_000)
        s.window = TimeInterval(try settings.integer("\(prefix)ALERT_WINDOW_SECONDS", default: Int(s.window), in: 1...86_400))
        s.eventsPerSubject = try settings.integer(
            "\(prefix)EVENTS_PER_\(subject)", default: s.eventsPerSubject,
            in: 1...1_000_000)
        s.eventsPerWindow = try settings.integer("\(prefix)EVENTS_PER_WINDOW", default: s.eventsPerWindow, in: 1...10_000_000)
        return s
    }

    /// A limiter with these bounds.
    public func limiter() -> SecurityEventLimiter {
        SecurityEventLimiter(threshold: alertRejections, perSubject: eventsPerSubject, total: eventsPerWindow, window: window)
    }
}
