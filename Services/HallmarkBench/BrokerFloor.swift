import Foundation
import HallmarkKafka
import HallmarkRuntime
import Logging

/// What the broker charges a paced stream through the aggregator pipeline's shape (#55), with
/// no Hallmark code in the way: the floor under the pipeline's cost per bundle at that pace, for
/// these client settings.
///
/// The chain has the pipeline's four topics, consumers and producers, and its messages per
/// bundle. The bench's paced producer writes `in`. An "intake" reader sends what arrived of a
/// partition since its last send as one carrier to `req`, at most once per batch pace, as the
/// intake carries a batch's token requests; an "authority" consumer with its own producer
/// forwards each carrier to `res`; a "joiner" reader sends each line of a carrier to `out` as
/// its own message, as the joiner answers each submission. The intake and the joiner read
/// through one consumer and write through one producer, as the aggregator's stages do
/// (``SharedConsumer``, docs/runtime.md). A reader reads `out`. Every client has the settings
/// the services run with (``KafkaConfiguration`` and the batch pace from the environment):
/// fetch wait, linger, requests in flight, rests. The forwarders check no schema and touch no
/// database, and they run in the bench's process: the broker's CPU and the bench's are the
/// floor.
struct BrokerFloor {
    let kafka: KafkaConfiguration
    let logger: Logger
    /// Prefixes this run's topics and groups.
    let prefix: String
    let partitions: Int
    /// The bench's paced producer, the one that sends bundles.
    let load: KafkaProducer
    /// The stages' batch pace (`HALLMARK_BATCH_PACE_MS`): the intake's carriers go at most
    /// this often.
    let batchPace: Duration

    /// One paced stream through the chain, over the messages read after the warm-up.
    struct Reading {
        var count: Int
        /// CPU milliseconds per message read at the end: the broker's, and the bench process's
        /// (the paced producer, the forwarders and the reader).
        var broker: Double, bench: Double
        /// Send → read at the end of the chain, in milliseconds.
        var p50: Double, p99: Double
    }

    /// Sends `rate` messages a second through a fresh chain named `name` for `warmup` and then
    /// `seconds`, and reads them all at its end.
    func measure(rate: Double, warmup: Double, seconds: Double, name: String) async throws -> Reading {
        let topic = { (hop: String) in "\(prefix).floor.\(name).\(hop)" }
        let (input, request, result, output) = (topic("in"), topic("req"), topic("res"), topic("out"))
        try await KafkaAdmin(configuration: kafka, logger: logger).createTopics(
            [input, request, result, output], partitions: partitions)
        let aggregator = try KafkaProducer(configuration: kafka, logger: logger)
        let authority = try KafkaProducer(configuration: kafka, logger: logger)
        let (intake, authorityInput, joiner) = try sources(
            input: input, request: request, result: result, group: topic("group"))
        let consumers: [any StageSource] = [intake, authorityInput, joiner]
        // The reader answers what the bench sends: its producing wakes it from a rest.
        let reader = try KafkaConsumer(
            configuration: kafka, groupID: "\(output)-reader", topics: [output], bufferCapacity: 8192,
            wakesOnProduce: true, logger: logger)
        for consumer in consumers { try consumer.start() }
        try reader.start()
        let warm = Int(rate * warmup)
        let total = warm + Int(rate * seconds)
        let forwarders = [
            Task { try await Self.carry(total, from: intake, to: request, with: aggregator, pace: batchPace) },
            // It forwards carriers until the chain closes: how many there are is the pace's doing.
            Task { _ = try await KafkaBench.forward(.max, from: authorityInput, to: result, with: authority) },
            Task { try await Self.spread(total, from: joiner, to: output, with: aggregator) },
        ]
        let sending = Task { try await pace(total, rate: rate, topic: input) }
        let timer = Task {
            try? await Task.sleep(for: .seconds(3 * (warmup + seconds) + 60))
            reader.beginClose()
        }
        var read = 0
        var before = Self.cpu()
        var latencies: [Double] = []
        latencies.reserveCapacity(total - warm)
        for await message in reader.messages {
            read += 1
            if read == warm { before = Self.cpu() }
            if read > warm, let sent = KafkaBench.sentNanos(message.value) {
                latencies.append(Double(DispatchTime.now().uptimeNanoseconds &- sent) / 1e6)
            }
            if read == total { break }
        }
        let after = Self.cpu()
        timer.cancel()
        for consumer in consumers { consumer.beginClose() }
        try await sending.value
        for forwarder in forwarders { try await forwarder.value }
        for consumer in consumers { await consumer.close() }
        await reader.close()
        _ = await aggregator.close()
        _ = await authority.close()
        guard read == total else { throw BenchError("the broker floor's chain read \(read) of \(total) messages") }
        let counted = Double(max(total - warm, 1))
        let p = BenchExchange.percentiles(latencies)
        return Reading(
            count: total - warm, broker: (after.broker - before.broker) * 1000 / counted,
            bench: (after.bench - before.bench) * 1000 / counted, p50: p.p50, p99: p.p99)
    }

    /// The three forwarders' sources: the intake's and the joiner's read through one consumer in
    /// one group, the authority's through one of its own.
    private func sources(
        input: String, request: String, result: String, group: String
    ) throws -> (intake: any StageSource, authority: any StageSource, joiner: any StageSource) {
        let shared = SharedConsumer(configuration: kafka, groupID: group, logger: logger)
        let intake = SharedConsumer.Member(groupID: group, topics: [input], bufferCapacity: 4096, wakesOnProduce: false)
        // As in the pipeline, the joiner's input answers what its process sends: its producing
        // wakes the joiner from a rest.
        let joiner = SharedConsumer.Member(groupID: group, topics: [result], bufferCapacity: 4096, wakesOnProduce: true)
        try shared.declare([intake, joiner])
        let ignore: @Sendable (KafkaRebalanceEvent) -> Void = { _ in }
        guard let intakeReader = shared.open(intake, rebalanceListener: ignore),
            let joinerReader = shared.open(joiner, rebalanceListener: ignore)
        else { throw BenchError("the broker floor's shared consumer refused a reader") }
        let authority = try KafkaConsumer(
            configuration: kafka, groupID: "\(request)-group", topics: [request], bufferCapacity: 4096,
            wakesOnProduce: false, logger: logger)
        return (intakeReader, authority, joinerReader)
    }

    /// `total` messages of about a bundle's size at `rate` a second, each stamped with when it went.
    private func pace(_ total: Int, rate: Double, topic: String) async throws {
        let pad = String(repeating: "x", count: 1200)
        let start = ContinuousClock.now
        var acks: [KafkaDeliveryGroup] = []
        acks.reserveCapacity(total)
        for i in 0..<total {
            let due = start + .nanoseconds(Int64(Double(i) * 1e9 / rate))
            if due > .now { try await Task.sleep(until: due) }
            let value = #"{"sent_ns":\#(DispatchTime.now().uptimeNanoseconds),"pad":"\#(pad)"}"#
            acks.append(try await load.enqueue([.init(topic: topic, key: Array("k\(i)".utf8), value: Array(value.utf8))]))
        }
        for ack in acks { try await ack.wait() }
    }

    /// CPU seconds so far of the broker and of this process.
    private static func cpu() -> (broker: Double, bench: Double) {
        (SystemProcesses.cpuSeconds(named: ["tansu": "broker"])["broker"] ?? 0, ProcessCPU.seconds())
    }
}
