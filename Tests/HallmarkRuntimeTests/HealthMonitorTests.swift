import Foundation
import HallmarkCore
import HallmarkRuntime
import Synchronization
import Testing

/// When a process counts as stalled, and the health file's settings.
@Suite("Health monitor", .timeLimit(.minutes(1)))
struct HealthMonitorTests {
    static func state(
        poll: Duration? = .milliseconds(100), inFlight: Int = 0, progress: Duration = .seconds(1)
    )
        -> HealthMonitor.StageState
    {
        HealthMonitor.StageState(name: "hallmark-probe", sinceLastPoll: poll, inFlight: inFlight, sinceProgress: progress)
    }

    @Test func aStageThatPollsAndFinishesIsHealthy() {
        #expect(
            HealthMonitor.problems(
                [Self.state(), Self.state(inFlight: 5, progress: .seconds(9))],
                stallLimit: .seconds(10)
            ).isEmpty)
        // Idle for long is fine when nothing is in flight; not started yet is fine too.
        #expect(
            HealthMonitor.problems(
                [Self.state(progress: .seconds(3600)), Self.state(poll: nil)],
                stallLimit: .seconds(10)
            ).isEmpty)
    }

    @Test func aConsumerThatStoppedPollingIsAProblem() {
        let problems = HealthMonitor.problems([Self.state(poll: .seconds(11))], stallLimit: .seconds(10))
        #expect(problems.map(\.description) == ["hallmark-probe: the consumer has not polled for 11 s"])
        #expect(problems.map(\.kind) == [.notPolling])
    }

    @Test func messagesInFlightAndNoneFinishedIsAProblem() {
        let problems = HealthMonitor.problems([Self.state(inFlight: 3, progress: .seconds(12))], stallLimit: .seconds(10))
        #expect(problems.map(\.description) == ["hallmark-probe: 3 in flight, none finished for 12 s"])
        #expect(problems.map(\.kind) == [.noProgress])
    }

    @Test func registeredSourcesAreAskedUntilUnregistered() {
        let monitor = HealthMonitor()
        let a = monitor.register { Self.state(inFlight: 1) }
        _ = monitor.register { Self.state(inFlight: 2) }
        #expect(monitor.states().map(\.inFlight) == [1, 2])
        monitor.unregister(a)
        #expect(monitor.states().map(\.inFlight) == [2])
    }

    /// A check tells each stage its verdict (the stalled gauge), and returns the problems the
    /// health file writes: the two can never disagree.
    @Test func aCheckTellsEachStageWhetherItIsStalled() {
        let monitor = HealthMonitor()
        let verdicts = Mutex<[String: Bool]>([:])
        _ = monitor.register(
            { HealthMonitor.StageState(name: "a", sinceLastPoll: .seconds(1), inFlight: 0, sinceProgress: .seconds(1)) },
            verdict: { stalled in verdicts.withLock { $0["a"] = stalled } })
        _ = monitor.register(
            { HealthMonitor.StageState(name: "b", sinceLastPoll: .seconds(1), inFlight: 2, sinceProgress: .seconds(20)) },
            verdict: { stalled in verdicts.withLock { $0["b"] = stalled } })
        _ = monitor.register { Self.state(poll: .seconds(30)) }
        let problems = monitor.check(stallLimit: .seconds(10))
        #expect(problems.map(\.stage) == ["b", "hallmark-probe"])
        #expect(problems == HealthMonitor.problems(monitor.states(), stallLimit: .seconds(10)))
        #expect(verdicts.withLock { $0 } == ["a": false, "b": true])
        #expect(monitor.check(stallLimit: .seconds(60)).isEmpty)
        #expect(verdicts.withLock { $0 } == ["a": false, "b": false])
    }

    @Test func settingsComeFromTheEnvironment() throws {
        #expect(try HealthFile.Settings.fromEnvironment([:]) == nil)
        let s = try #require(
            try HealthFile.Settings.fromEnvironment([
                "HALLMARK_HEALTH_FILE": "/tmp/h.json", "HALLMARK_HEALTH_INTERVAL_MS": "250", "HALLMARK_HEALTH_STALL_SECONDS": "7",
            ]))
        #expect(s.path == "/tmp/h.json" && s.interval == .milliseconds(250) && s.stallLimit == .seconds(7))
        for bad in [
            ["HALLMARK_HEALTH_FILE": "relative.json"], ["HALLMARK_HEALTH_FILE": "/tmp/"],
            ["HALLMARK_HEALTH_FILE": "/tmp/h.json", "HALLMARK_HEALTH_STALL_SECONDS": "0"],
        ] {
            #expect(throws: ConfigurationError.self) { try HealthFile.Settings.fromEnvironment(bad) }
        }
    }
}
