import Foundation
import HallmarkTestSupport
import Testing

/// The stage loop rides out a restart of PostgreSQL. It restarts the server every other test
/// uses, so deploy/local/test runs this suite alone, after the others
/// (``PostgresServerControl/restart()`` refuses while they run).
@Suite("Stage loop across a database restart", .timeLimit(.minutes(5)))
struct StageLoopRestartTests {
    @Test func postgresRestartDuringRunLosesNothing() async throws {
        guard PostgresServerControl.dataDirectory != nil else {
            Issue.record("HALLMARK_PG_DATA is not set: run the tests through deploy/local/test")
            return
        }
        let h = try await StageHarness()
        defer { Task { await h.close() } }
        try await h.produceRequests(3_000)
        let probe = try h.startProbe("pg", ["HALLMARK_PROBE_DELAY_MS": "1"])
        try await h.waitForEffects(300)
        try await PostgresServerControl.restart()
        try await h.waitForEffects(3_000)
        let effects = try await h.effects()
        #expect(effects.distinct == 3_000)
        #expect(effects.rows == 3_000)
        #expect(probe.logCount("processing failed; retrying") > 0, "the restart was not noticed: nothing tested")
        probe.signal(SIGTERM)
        #expect(await probe.waitForExit(timeout: .seconds(30)) == 0)
    }
}
