import Foundation
import Synchronization

/// Decides which security events a service sends, so that a flood of bad requests cannot
/// flood `hallmark.security` (this replica's view; each replica limits alone).
///
/// A subject is what the rejections are about: a partner (the signer, the gateway's ENC-1
/// decrypts) or a session (the gateway's E2EE-1 messages). Per subject, in windows that start
/// at the subject's first rejection:
/// - every rejection counts toward the rate alert, sent once when the count passes `threshold`;
/// - an event-worthy rejection (a bad MAC, a replay, a tampered message) gets its own event,
///   up to `perSubject` of them; later ones are only counted, and one summary with that count
///   is due when the window ends.
///
/// Across all subjects (their ids are the client's to choose), at most `total` events are
/// sent per window; what passes that is counted into one service-wide summary. So a window
/// sends at most `total` events plus `total / perSubject + 1` summaries.
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

    /// Events not sent in a window that has ended: one subject's, or (nil subject) those over
    /// the service-wide limit.
    public struct Summary: Sendable, Equatable {
        public let subject: String?
        public let count: Int
        public let windowStart: Date
    }

    struct SubjectWindow {
        var start: Date
        var rejections = 0
        var events = 0
        var suppressed = 0
        var alerted = false
    }

    struct State {
        var subjects: [String: SubjectWindow] = [:]
        var globalStart: Date?
        var globalSent = 0
        var globalSuppressed = 0
        var due: [Summary] = []
    }

    public let threshold: Int
    public let perSubject: Int
    public let total: Int
    public let window: TimeInterval
    private let state = Mutex(State())
    /// Subjects tracked at most; past it (until the reporter ends their windows), an
    /// untracked subject's events count service-wide.
    let maxSubjects: Int
    /// Summaries kept for the reporter at most (it takes them every second).
    static let maxDue = 10_000

    public init(threshold: Int, perSubject: Int, total: Int, window: TimeInterval, maxSubjects: Int = 100_000) {
        self.threshold = threshold
        self.perSubject = perSubject
        self.total = total
        self.window = window
        self.maxSubjects = maxSubjects
    }

    /// Records one rejection about `subject`; `eventWorthy` when it has an event of its own.
    public func record(subject: String, eventWorthy: Bool, now: Date) -> Decision {
        state.withLock { s in
            closeGlobal(&s, now: now)
            if s.globalStart == nil { s.globalStart = now }
            if let w = s.subjects[subject], now.timeIntervalSince(w.start) >= window {
                end(&s, subject, w)
            }
            var decision = Decision()
            guard var w = s.subjects[subject] ?? (s.subjects.count < maxSubjects ? SubjectWindow(start: now) : nil) else {
                if eventWorthy { s.globalSuppressed += 1 }
                return decision
            }
            w.rejections += 1
            if eventWorthy {
                if w.events >= perSubject {
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
            s.subjects[subject] = w
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
    /// to `due`. A scan of every subject, so only the periodic reporter calls it (never
    /// `record`, which a flood of new subject ids must not slow down).
    private func close(_ s: inout State, now: Date, all: Bool = false) {
        closeGlobal(&s, now: now, all: all)
        for (subject, w) in s.subjects where all || now.timeIntervalSince(w.start) >= window { end(&s, subject, w) }
    }

    private func closeGlobal(_ s: inout State, now: Date, all: Bool = false) {
        guard let start = s.globalStart, all || now.timeIntervalSince(start) >= window else { return }
        if s.globalSuppressed > 0, s.due.count < Self.maxDue {
            s.due.append(Summary(subject: nil, count: s.globalSuppressed, windowStart: start))
        }
        s.globalStart = nil
        s.globalSent = 0
        s.globalSuppressed = 0
    }

    private func end(_ s: inout State, _ subject: String, _ w: SubjectWindow) {
        if w.suppressed > 0, s.due.count < Self.maxDue {
            s.due.append(Summary(subject: subject, count: w.suppressed, windowStart: w.start))
        }
        s.subjects[subject] = nil
    }
}
