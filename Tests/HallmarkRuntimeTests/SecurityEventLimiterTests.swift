import Foundation
import HallmarkRuntime
import Testing

/// How many security events a flood of rejections may send (the signer's bad MACs and
/// replays, the gateway's tampered and replayed messages).
@Suite("Security event limiter", .timeLimit(.minutes(1)))
struct SecurityEventLimiterTests {
    @Test func alertsOncePerWindowPastTheThreshold() {
        let limiter = SecurityEventLimiter(threshold: 3, perSubject: 100, total: 1000, window: 60)
        let t = Date()
        let alerts = (0..<10).map {
            limiter.record(subject: "p", eventWorthy: false, now: t.addingTimeInterval(Double($0))).alert
        }
        #expect(alerts.compactMap { $0 } == [4])
        #expect(limiter.record(subject: "other", eventWorthy: false, now: t) == .init())
        #expect(limiter.record(subject: "p", eventWorthy: false, now: t.addingTimeInterval(61)) == .init())
    }

    /// Per subject: `perSubject` events, then counted into a summary due when the window ends;
    /// over all subjects: `total` events, then one summary without a subject.
    @Test func boundsEventsPerSubjectAndOverall() {
        let limiter = SecurityEventLimiter(threshold: 1000, perSubject: 2, total: 5, window: 10)
        let t = Date()
        let flood = (0..<6).map { limiter.record(subject: "a", eventWorthy: true, now: t + Double($0) / 10).event }
        #expect(flood == [true, true, false, false, false, false])
        #expect(limiter.record(subject: "a", eventWorthy: false, now: t + 1).event == false)
        let spread = (0..<6).map { limiter.record(subject: "p\($0)", eventWorthy: true, now: t + 2).event }
        #expect(spread == [true, true, true, false, false, false])
        #expect(limiter.summaries(now: t + 5).isEmpty, "a summary before its window ended")
        let due = limiter.summaries(now: t + 12)
        #expect(Set(due.map { "\($0.subject ?? "*"):\($0.count)" }) == ["a:4", "*:3"])
        #expect(limiter.summaries(now: t + 13).isEmpty, "a summary sent twice")
        // A new window starts fresh; shutdown takes the open windows' counts too.
        let again = (0..<3).map { _ in limiter.record(subject: "a", eventWorthy: true, now: t + 20).event }
        #expect(again == [true, true, false])
        #expect(limiter.summaries(now: t + 21, all: true).map(\.count) == [1])
    }

    /// Subject ids are untrusted: past the subject table's size, new subjects count overall.
    @Test func staysBoundedWithEndlessSubjects() {
        let limiter = SecurityEventLimiter(threshold: 1, perSubject: 1, total: 1_000_000, window: 60, maxSubjects: 100)
        let t = Date()
        let sent = (0..<1_000).filter { limiter.record(subject: "p\($0)", eventWorthy: true, now: t).event }.count
        #expect(sent == 100)
        #expect(limiter.summaries(now: t + 60).map(\.count) == [900])
    }
}
