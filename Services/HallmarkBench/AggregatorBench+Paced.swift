import HallmarkClient

extension AggregatorBench {
    /// A paced stream's outcome: what was sent, what came back, and what it cost.
    struct PacedStream {
        /// Bundles sent, the warm-up included.
        var sent: Int
        /// Answers read, and how many of them accepted the bundle.
        var answered: Int
        var accepted: Int
        /// The latency of each bundle after the warm-up, in milliseconds, in the order sent
        /// (nil where no answer came).
        var counted: [Double?]
        /// Messages, PostgreSQL and CPU by process over the stream.
        var work: PhaseWork
    }

    /// Sends fresh bundles at `rate` per second for `warmup` and then `seconds`, reads every
    /// answer, and measures the stream with `meter`.
    func pacedStream(
        rate: Double, warmup: Double, seconds: Double, fleet: [ProvisioningFile], meter: PhaseWork.Meter
    ) async throws -> PacedStream {
        let bundles = try self.bundles(Int(rate * (warmup + seconds)), from: fleet)
        let (sent, work) = try await meter.measure { try await submit(bundles, pace: rate) }
        // Bundles are sent in order, so their index is their send time's order.
        let counted = bundles.dropFirst(Int(rate * warmup)).map { sent.latencies[$0.id.text] }
        return PacedStream(
            sent: bundles.count, answered: sent.latencies.count, accepted: sent.accepted, counted: counted, work: work)
    }
}
