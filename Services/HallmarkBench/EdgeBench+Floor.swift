import Foundation

extension EdgeBench {
    /// The floor's bare front (``EdgeFloorFront``) on a free port, started from this bench's own
    /// executable (`hallmark bench edge-floor`) on `aggregator`'s topics, in place of the edge.
    /// Ready when it listens and holds its answers' partitions.
    static func startFloor(_ aggregator: AggregatorBench) async throws -> EdgeBench {
        let port = try HTTPLoad.freePort()
        let g = aggregator.world.aggregator
        let front = try BenchProcess(
            binary: Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0]),
            arguments: [
                "bench", "edge-floor", "--port", String(port), "--submissions", g.submissionInput, "--results",
                g.submissionOutput,
            ], environment: [:])
        do {
            try await front.waitForLog(EdgeFloorFront.listening)
        } catch {
            front.stop()
            throw error
        }
        return EdgeBench(aggregator: aggregator, edge: front, port: port)
    }
}
