import Foundation
import HallmarkKafka
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// Issue #10 §1 through the reference stage: inputs of 0.9–8 MB and at the limit ±1 byte,
/// each followed by small messages on the same key and on another key. Every message gets
/// exactly one outcome and nothing stalls.
@Suite("No input size stalls the stage", .serialized, .timeLimit(.minutes(6)))
struct OversizedInputTests {
    @Test func everySizeGetsOneOutcomeAndTheRestFlows() async throws {
        let h = try await StageHarness()
        let probe = try h.startProbe("sizes")
        let limit = 1 << 20
        let matrix = try SizeMatrix(kafka: h.kafka, logger: h.logger)
        let report = try await matrix.run(
            topic: h.input, results: h.output, idField: "correlation_id",
            rejected: h.rejected, limit: limit
        ) { id, _ in StageHarness.request(n: 1, id: MessageID(id)!) }
        #expect(report.stalled == 0, "\(report)")
        #expect(report.duplicated == 0, "\(report)")
        #expect(report.answered == report.sent)
        // At or under the limit the padded request is processed; over it, rejected as oversized.
        for line in report.large {
            let size = Int(line.prefix { $0.isNumber })!
            #expect(line.hasSuffix(size <= limit ? ": result" : ": oversized"), "\(line)")
        }
        probe.signal(SIGTERM)
        #expect(await probe.waitForExit(timeout: .seconds(30)) == 0)
        await matrix.close()
        await h.close()
    }
}
