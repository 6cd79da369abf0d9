@testable import HallmarkRuntime
import Testing

@Suite("Batch pace", .timeLimit(.minutes(1)))
struct BatchPaceTests {
    let t0 = ContinuousClock.now

    @Test func theFirstBatchAndOneAfterAQuietSpellGoAtOnce() {
        var pace = BatchPace(interval: .milliseconds(20))
        #expect(pace.due(at: t0) == nil)
        pace.started(at: t0)
        #expect(pace.due(at: t0 + .milliseconds(20)) == nil)
        #expect(pace.due(at: t0 + .seconds(5)) == nil)
    }

    @Test func aBatchSoonerThanThePaceWaitsForTheRestOfIt() {
        var pace = BatchPace(interval: .milliseconds(20))
        pace.started(at: t0)
        #expect(pace.due(at: t0) == t0 + .milliseconds(20))
        #expect(pace.due(at: t0 + .milliseconds(19)) == t0 + .milliseconds(20))
        // Counted from the latest start.
        pace.started(at: t0 + .milliseconds(25))
        #expect(pace.due(at: t0 + .milliseconds(30)) == t0 + .milliseconds(45))
    }

    @Test func afterAResetTheNextBatchGoesAtOnce() {
        var pace = BatchPace(interval: .milliseconds(20))
        pace.started(at: t0)
        pace.reset()
        #expect(pace.due(at: t0) == nil)
    }

    @Test func noPaceNeverWaits() {
        var pace = BatchPace(interval: .zero)
        pace.started(at: t0)
        #expect(pace.due(at: t0) == nil)
    }
}
