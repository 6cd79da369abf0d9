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
        var sent: Int
        var answered: Int
        var p99: Double
        var firstP50: Double
        var lastP50: Double
        var cpuPerBundle: Double
        var held: Bool
        /// What the stream cost: messages, PostgreSQL, CPU by process.
        var work: PhaseWork
    }

    /// Sends a stream paced at `rate` for the rule's warm-up and seconds, waits for every
    /// answer, and judges it: held when every bundle was answered, the counted p99 is under
    /// the limit and the lag did not grow.
    func steadyProbe(
        rate: Double, rule: SteadyRule, fleet: [ProvisioningFile], meter: PhaseWork.Meter
    ) async throws -> SteadyProbe {
        let bundles = try self.bundles(Int(rate * (rule.warmup + rule.seconds)), from: fleet)
        let (sent, work) = try await meter.measure { try await submit(bundles, pace: rate) }
        // Bundles are sent in order, so their index is their send time's order.
        let counted = bundles.dropFirst(Int(rate * rule.warmup)).map { sent.latencies[$0.id.text] }
        let latencies = counted.compactMap { $0 }
        let span = min(counted.count, Int(rate * rule.window))
        let first = BenchExchange.percentiles(counted.prefix(span).compactMap { $0 }).p50
        let last = BenchExchange.percentiles(counted.suffix(span).compactMap { $0 }).p50
        let p99 = BenchExchange.percentiles(latencies).p99
        let answered = sent.latencies.count
        let held =
            answered == bundles.count && p99 < rule.p99Limit && !rule.lagGrew(first: first, last: last)
        return SteadyProbe(
            rate: rate, sent: bundles.count, answered: answered, p99: p99, firstP50: first, lastP50: last,
            cpuPerBundle: work.cpuMilliseconds / Double(max(bundles.count, 1)), held: held, work: work)
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
