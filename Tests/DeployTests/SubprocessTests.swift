import Foundation
import HallmarkSubprocess
import Testing

/// The runner DeployTests and OperationsTests start programs with.
@Suite(.timeLimit(.minutes(1)))
struct SubprocessTests {
    @Test func statusOutputAndDirectory() async throws {
        let result = try await Subprocess.run("/bin/sh", ["-c", "pwd; echo to-stderr >&2; exit 3"], in: "/tmp")
        #expect(result.status == 3)
        #expect(result.output == "/tmp\nto-stderr\n")
        #expect(!result.timedOut)
    }

    @Test func environmentIsExactlyTheOneGiven() async throws {
        let result = try await Subprocess.run("/usr/bin/env", [], environment: ["ONLY": "this"])
        #expect(result.output == "ONLY=this\n")
    }

    @Test func aSignalIsReportedAs128PlusIt() async throws {
        let result = try await Subprocess.run("/bin/sh", ["-c", "kill -TERM $$"])
        #expect(result.status == 128 + SIGTERM)
    }

    /// A program past its timeout is killed and reaped, and the call returns.
    @Test func aProgramPastItsTimeoutIsKilled() async throws {
        let started = ContinuousClock.now
        let result = try await Subprocess.run("/bin/sleep", ["600"], timeout: .milliseconds(300))
        #expect(result.timedOut)
        #expect(result.status == 128 + SIGKILL)
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    /// A daemon the program leaves behind (as `tmux new-session` leaves its server) holds
    /// the output open; the call still returns when the program itself exits.
    @Test func aDaemonLeftBehindDoesNotHoldTheCall() async throws {
        let result = try await Subprocess.run("/bin/sh", ["-c", "(sleep 30 &) ; echo started"], timeout: .seconds(20))
        #expect(!result.timedOut)
        #expect(result.status == 0)
        #expect(result.output == "started\n")
    }

    @Test func aMissingProgramIsAnError() async throws {
        await #expect(throws: Subprocess.SpawnError.self) {
            try await Subprocess.run("/nonexistent/program", [])
        }
    }
}
