import Foundation
import Synchronization

/// Decides which of the signer's security events are sent, so that a flood of bad requests
/// cannot flood `hallmark.security` (this replica's view; each replica limits alone).
///
/// Per partner, in windows that start at the partner's first rejection:
/// - every rejection counts toward the rate alert, sent once when the count passes `threshold`;
/// - a `bad_mac` or `replay` rejection gets its own event, up to `perPartner` of them; later
///   ones are only counted, and one summary with that count is due when the window ends.
///
/// Across all partners (partner ids are the client's to choose), at most `total` events are
/// sent per window; what passes that is counted into one service-wide summary. So a window
/// sends at most `total` events plus `total / perPartner + 1` summaries.
public final class SecurityEventLimiter: Sendable {
    /// What to send for one rejection.
    public struct Decision: Sendable, Equatable {
        /// Send the rejection's own event.
        public var event = false
        /// Send the rate alert, with the window's rejection count.
        public var alert: Int?

        public init(event: Bool = false, alert: Int? = nil) {
            self.event = event
            self.alert = alert
        }
    }

    /// Events not sent in a window that has ended: one partner's, or (nil partner) those over
    /// the service-wide limit.
    public struct Summary: Sendable, Equatable {
        public let partner: String?
        public let count: Int
        public let windowStart: Date
    }

    struct PartnerWindow {
        var start: Date
        var rejections = 0
        var events = 0
        var suppressed = 0
        var alerted = false
    }

    struct State {
        var partners: [String: PartnerWindow] = [:]
        var globalStart: Date?
        var globalSent = 0
        var globalSuppressed = 0
        var due: [Summary] = []
    }

    public let threshold: Int
    public let perPartner: Int
    public let total: Int
    public let window: TimeInterval
    private let state = Mutex(State())
    /// Partners tracked at most; past it (until the reporter ends their windows), an
    /// untracked partner's events count service-wide.
    let maxPartners: Int
    /// Summaries kept for the reporter at most (it takes them every second).
    static let maxDue = 10_000

    public init(threshold: Int, perPartner: Int, total: Int, window: TimeInterval, maxPartners: Int = 100_000) {
        self.threshold = threshold
        self.perPartner = perPartner
        self.total = total
        self.window = window
        self.maxPartners = maxPartners
    }

    /// Records one rejection of `partner`; `eventWorthy` for `bad_mac` and `replay`.
    public func record(partner: String, eventWorthy: Bool, now: Date) -> Decision {
        state.withLock { s in
            closeGlobal(&s, now: now)
            if s.globalStart == nil { s.globalStart = now }
            if let w = s.partners[partner], now.timeIntervalSince(w.start) >= window {
                end(&s, partner, w)
            }
            var decision = Decision()
            guard var w = s.partners[partner] ?? (s.partners.count < maxPartners ? PartnerWindow(start: now) : nil) else {
                if eventWorthy { s.globalSuppressed += 1 }
                return decision
            }
            w.rejections += 1
            if eventWorthy {
                if w.events >= perPartner {
                    w.suppressed += 1
                } else if s.globalSent >= total {
                    s.globalSuppressed += 1
                } else {
                    w.events += 1
                    s.globalSent += 1
                    decision.event = true
                }
            }
            if w.rejections > threshold && !w.alerted {
                w.alerted = true
                if s.globalSent < total {
                    s.globalSent += 1
                    decision.alert = w.rejections
                } else {
                    s.globalSuppressed += 1
                }
            }
            s.partners[partner] = w
            return decision
        }
    }

    /// The summaries of windows that ended by `now`; with `all`, of every window (at shutdown).
    public func summaries(now: Date, all: Bool = false) -> [Summary] {
        state.withLock { s in
            close(&s, now: now, all: all)
            defer { s.due = [] }
            return s.due
        }
    }

    /// Ends every window that is over (all of them with `all`), moving what they suppressed
    /// to `due`. A scan of every partner, so only the periodic reporter calls it (never
    /// `record`, which a flood of new partner ids must not slow down).
    private func close(_ s: inout State, now: Date, all: Bool = false) {
        closeGlobal(&s, now: now, all: all)
        for (partner, w) in s.partners where all || now.timeIntervalSince(w.start) >= window { end(&s, partner, w) }
    }

    private func closeGlobal(_ s: inout State, now: Date, all: Bool = false) {
        guard let start = s.globalStart, all || now.timeIntervalSince(start) >= window else { return }
        if s.globalSuppressed > 0, s.due.count < Self.maxDue { s.due.append(Summary(partner: nil, count: s.globalSuppressed, windowStart: start)) }
        s.globalStart = nil
        s.globalSent = 0
        s.globalSuppressed = 0
    }

    private func end(_ s: inout State, _ partner: String, _ w: PartnerWindow) {
        if w.suppressed > 0, s.due.count < Self.maxDue { s.due.append(Summary(partner: partner, count: w.suppressed, windowStart: w.start)) }
        s.partners[partner] = nil
    }
}
