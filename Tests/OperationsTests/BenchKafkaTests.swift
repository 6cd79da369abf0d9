import Foundation
import HallmarkTestSupport
import Testing

/// `hallmark bench kafka` on the real broker: every phase moves every message, so its figures
/// (the broker's floor beside the stage loop) are of complete runs.
@Suite("hallmark bench kafka", .timeLimit(.minutes(5)))
struct BenchKafkaTests {
    @Test func everyPhaseMovesEveryMessage() async throws {
        let bench = try ServiceProcess(
            "hallmark",
            arguments: ["bench", "kafka", "--messages", "400", "--latency-rate", "50", "--latency-seconds", "2"],
            name: "bench-kafka", environment: [:])
        defer { bench.signal(SIGKILL) }
        let status = await bench.waitForExit(timeout: .seconds(240))
        let text = (try? String(contentsOf: bench.logFile, encoding: .utf8)) ?? ""
        try #require(status == 0, "exit \(String(describing: status)): \(text.suffix(3000))")
        for phase in [
            "raw produce (acked)", "raw consume", "raw forward (one hop)", "stage loop (no-op, lanes)",
            "stage loop (no-op, batches)",
        ] {
            #expect(Self.rate(of: phase, in: text).map { $0 > 0 } == true, "\(phase): \(text.suffix(3000))")
        }
        // Each latency phase read all 100 messages it sent, after the hop it names.
        for hop in ["broker, no hop", "raw forward", "stage loop"] {
            let line = text.split(separator: "\n").first { $0.hasPrefix("  \(hop)") && $0.contains("p99") }
            #expect(line?.hasSuffix("(100 messages)") == true, "\(hop): \(text.suffix(3000))")
        }
    }

    /// The msgs/s figure printed after `phase:`.
    static func rate(of phase: String, in text: String) -> Double? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(phase + ":") }) else { return nil }
        return line.split(separator: " ").reversed().dropFirst().first.flatMap { Double($0) }
    }
}
