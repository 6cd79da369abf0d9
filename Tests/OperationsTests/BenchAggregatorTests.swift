import Foundation
import HallmarkTestSupport
import Testing

/// `hallmark bench aggregator`, small, on the real broker and PostgreSQL: every phase runs to
/// its end, and the floor's chains (their internal hops in carriers) read every message they
/// were sent, so the floor printed beside the cost ratios is of complete chains. (About three
/// minutes alone: the readings around each phase wait for PostgreSQL's statistics to settle.)
@Suite("hallmark bench aggregator", .timeLimit(.minutes(10)))
struct BenchAggregatorTests {
    @Test func everyPhaseEndsAndTheFloorReadsItsWholeChain() async throws {
        let run = try await BenchRun.run(
            [
                "aggregator", "--cameras", "4", "--bundles", "200", "--rate", "40", "--warmup-seconds", "1",
                "--paced-seconds", "2", "--low-seconds", "2", "--idle-seconds", "1", "--queries", "50", "--leaves", "2000",
                "--tile-seconds", "1", "--witnesses", "1", "--witness-rounds", "2", "--no-witnessed-aggregator",
            ],
            timeout: .seconds(540))
        // One floor line for each of the two rates, each over the messages paced after its warm-up.
        let floors = run.lines.filter { $0.hasPrefix("floor at ") }
        #expect(floors.count == 2, "\(run.tail)")
        for line in floors {
            let count = line.split(separator: " ").dropLast().last.flatMap { Int($0) }
            #expect(count.map { $0 > 0 } == true && line.hasSuffix(" messages"), "\(line)")
            #expect(!line.contains("nan") && !line.contains("inf"), "\(line)")
        }
        let ratios = run.line("cost ratios:")
        #expect(ratios.components(separatedBy: "; the floor ").count == 3, "\(ratios)")
    }
}
