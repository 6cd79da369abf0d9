import Foundation
import HallmarkClient

extension AggregatorBench {
    /// What `--steady` asks of a paced stream before it calls the rate one the stack holds.
    struct SteadyRule {
        /// Seconds of the stream whose latencies count (after the warm-up).
        var seconds: Double
        /// Seconds sent first, not counted: group assignment, caches, pools.
        var warmup: Double
        /// The p99 every held rate stays under, in milliseconds.
        var p99Limit = 1000.0

        /// The length of the first and the last stretch whose medians say whether the lag grew.
        var window: Double { max(5, seconds / 6) }

        /// Whether the lag grew: by Little's law a queue that grows at a constant rate of
        /// arrivals is a latency that grows, so the median of the bundles sent in the last
        /// window is compared with that of the first. Half again plus 25 ms is noise; a stream
        /// over capacity ends seconds behind.
        func lagGrew(first: Double, last: Double) -> Bool { last > first * 1.5 + 25 }
    }

    /// One paced stream of the search and its verdict.
    struct SteadyProbe {
        var rate: Double
        var stream: PacedStream
        var p99: Double
        var firstP50: Double
        var lastP50: Double
        var held: Bool

        /// CPU-ms of every process per bundle sent.
        var cpuPerBundle: Double { stream.work.cpuMilliseconds / Double(max(stream.sent, 1)) }
    }

    /// Sends a stream paced at `rate` for the rule's warm-up and seconds, waits for every
    /// answer, and judges it: held when every bundle was answered, the counted p99 is under
    /// the limit and the lag did not grow.
    func steadyProbe(
        rate: Double, rule: SteadyRule, fleet: [ProvisioningFile], meter: PhaseWork.Meter
    ) async throws -> SteadyProbe {
        let stream = try await pacedStream(
            rate: rate, warmup: rule.warmup, seconds: rule.seconds, fleet: fleet, meter: meter)
        let counted = stream.counted
        let span = min(counted.count, Int(rate * rule.window))
        let first = BenchExchange.percentiles(counted.prefix(span).compactMap { $0 }).p50
        let last = BenchExchange.percentiles(counted.suffix(span).compactMap { $0 }).p50
        let p99 = BenchExchange.percentiles(counted.compactMap { $0 }).p99
        let held =
            stream.answered == stream.sent && p99 < rule.p99Limit && !rule.lagGrew(first: first, last: last)
        return SteadyProbe(rate: rate, stream: stream, p99: p99, firstP50: first, lastP50: last, held: held)
    }

    /// The highest paced rate the stack holds, up to `ceiling` (the all-at-once rate): the
    /// first probe at `goal` of the ceiling, then bisection between the highest rate that held
    /// (0 at first) and the lowest that did not (the ceiling at first). Each probe is reported
    /// through `report` as it ends.
    func steadySearch(
        ceiling: Double, goal: Double, probes: Int, rule: SteadyRule, fleet: [ProvisioningFile],
        meter: PhaseWork.Meter, report: (SteadyProbe) -> Void
    ) async throws -> (held: SteadyProbe?, failed: SteadyProbe?) {
        var held: SteadyProbe?
        var failed: SteadyProbe?
        var rate = ceiling * goal
        for _ in 0..<probes {
            let probe = try await steadyProbe(rate: rate, rule: rule, fleet: fleet, meter: meter)
            report(probe)
            if probe.held { held = probe } else { failed = probe }
            rate = ((held?.rate ?? 0) + (failed?.rate ?? ceiling)) / 2
        }
        return (held, failed)
    }
}
