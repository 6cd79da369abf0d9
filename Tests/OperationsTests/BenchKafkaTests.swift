import Foundation
import HallmarkTestSupport
import Testing

/// `hallmark bench kafka` on the real broker: every phase moves every message, so its figures
/// (the broker's floor beside the stage loop) are of complete runs.
@Suite("hallmark bench kafka", .timeLimit(.minutes(5)))
struct BenchKafkaTests {
    @Test func everyPhaseMovesEveryMessage() async throws {
        let run = try await BenchRun.run(
            ["kafka", "--messages", "400", "--latency-rate", "50", "--latency-seconds", "2"], timeout: .seconds(240))
        let text = run.text
        for phase in [
            "raw produce (acked)", "raw consume", "raw forward (one hop)", "stage loop (no-op, lanes)",
            "stage loop (no-op, batches)",
        ] {
            #expect(Self.rate(of: phase, in: text).map { $0 > 0 } == true, "\(phase): \(run.tail)")
        }
        // Each latency phase read all 100 messages it sent, after the hop it names.
        for hop in ["broker, no hop", "raw forward", "stage loop"] {
            let line = text.split(separator: "\n").first { $0.hasPrefix("  \(hop)") && $0.contains("p99") }
            #expect(line?.hasSuffix("(100 messages)") == true, "\(hop): \(run.tail)")
        }
    }

    /// The msgs/s figure printed after `phase:`.
    static func rate(of phase: String, in text: String) -> Double? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(phase + ":") }) else { return nil }
        return line.split(separator: " ").reversed().dropFirst().first.flatMap { Double($0) }
    }
}
