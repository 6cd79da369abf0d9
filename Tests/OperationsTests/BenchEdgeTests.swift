import Foundation
import HallmarkTestSupport
import Testing

/// `hallmark bench edge`, small, on the real broker and PostgreSQL: every phase runs to its end,
/// and the floor's bare front (`hallmark bench edge-floor`, in place of the edge) gets every
/// submission through the same pipeline answered, so the floors printed beside the edge's goals
/// are of a complete run.
@Suite("hallmark bench edge", .timeLimit(.minutes(6)))
struct BenchEdgeTests {
    @Test func everyPhaseEndsAndTheFloorsFrontIsAnsweredForEverySubmission() async throws {
        let run = try await BenchRun.run(
            [
                "edge", "--cameras", "2", "--bundles", "200", "--connections", "32", "--paced-seconds", "2",
                "--paced-connections", "16", "--verify-hashes", "50", "--verify-connections", "4", "--verify-seconds", "1",
            ],
            timeout: .seconds(300))
        // Every submission the front published was answered, each accepted (fresh bundles).
        let floor = run.line("floor, HTTP path (a bare HTTP front")
        #expect(floor.contains(": 200 bundles = ") && floor.contains(" (200 accepted)"), "\(run.tail)")
        let paced = run.line("floor, submit waiting for its outcome")
        #expect(paced.contains(" p99 ") && !paced.hasSuffix(" over 0"), "\(run.tail)")
        let ratios = run.line("ratios: HTTP / Kafka")
        // A floor beside each goal: HTTP / Kafka, the edge's CPU, the p99, the whole machine.
        #expect(ratios.components(separatedBy: "; the floor ").count == 4, "\(ratios)")
        #expect(ratios.contains("(the floor "), "\(ratios)")
        for line in [floor, paced, ratios] { #expect(!line.contains("nan") && !line.contains("inf"), "\(line)") }
    }
}
