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
        let bench = try ServiceProcess(
            "hallmark",
            arguments: [
                "bench", "edge", "--cameras", "2", "--bundles", "200", "--connections", "32", "--paced-seconds", "2",
                "--paced-connections", "16", "--verify-hashes", "50", "--verify-connections", "4", "--verify-seconds",
                "1",
            ],
            name: "bench-edge", environment: [:])
        defer { bench.signal(SIGKILL) }
        let status = await bench.waitForExit(timeout: .seconds(300))
        let text = (try? String(contentsOf: bench.logFile, encoding: .utf8)) ?? ""
        try #require(status == 0, "exit \(String(describing: status)): \(text.suffix(3000))")
        let lines = text.split(separator: "\n").map(String.init)
        // Every submission the front published was answered, each accepted (fresh bundles).
        let floor = lines.first { $0.hasPrefix("floor, HTTP path (a bare HTTP front") } ?? ""
        #expect(floor.contains(": 200 bundles = ") && floor.contains(" (200 accepted)"), "\(text.suffix(3000))")
        let paced = lines.first { $0.hasPrefix("floor, submit waiting for its outcome") } ?? ""
        #expect(paced.contains(" p99 ") && !paced.hasSuffix(" over 0"), "\(text.suffix(3000))")
        let ratios = lines.first { $0.hasPrefix("ratios: HTTP / Kafka") } ?? ""
        // A floor beside each goal: HTTP / Kafka, the edge's CPU, the p99, the whole machine.
        #expect(ratios.components(separatedBy: "; the floor ").count == 4, "\(ratios)")
        #expect(ratios.contains("(the floor "), "\(ratios)")
        for line in [floor, paced, ratios] { #expect(!line.contains("nan") && !line.contains("inf"), "\(line)") }
    }
}
