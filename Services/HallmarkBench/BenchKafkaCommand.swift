import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import HallmarkRuntime
import Logging
import Metrics

/// `hallmark bench kafka`: the stage loop against raw librdkafka rates, in one run, on the
/// real broker (`HALLMARK_KAFKA_BROKERS`).
package struct BenchKafkaCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "kafka",
        abstract: "Stage-loop throughput and latency beside the broker's own: raw produce, consume and forward (1 KB JSON).")

    @Option(help: "Messages per throughput phase.") var messages = 20_000
    @Option(help: "Message size in bytes.") var size = 1024
    @Option(help: "Stage messages in flight.") var inFlight = 256
    @Option(help: "Partitions of the bench topics (default: HALLMARK_KAFKA_PARTITIONS).")
    var partitions = BenchCommand.defaultPartitions
    @Option(help: "Distinct message keys (per-key order limits concurrency to the keys in flight).")
    var keys = 10_000
    @Option(help: "Messages per second in the latency phase.") var latencyRate = 2_000
    @Option(help: "Seconds of the latency phase.") var latencySeconds = 5

    package init() {}

    package func run() async throws {
        let registry = MetricsRegistry()
        MetricsSystem.bootstrap(registry)
        var logger = Logger(label: "hallmark.bench")
        logger.logLevel = .warning
        let kafka = try KafkaConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        let run = String(UUID().uuidString.prefix(8)).lowercased()
        let topic = { (name: String) in "bench.\(run).\(name)" }
        let (input, output, forwarded) = (topic("in"), topic("out"), topic("forwarded"))
        let batchOutput = topic("out.batches")
        let hops: [(KafkaBench.Hop, input: String, output: String)] = [
            (.none, topic("lat.broker"), topic("lat.broker")),
            (.raw, topic("lat.raw.in"), topic("lat.raw.out")),
            (.stage(inFlight: inFlight), topic("lat.stage.in"), topic("lat.stage.out")),
        ]
        try await KafkaAdmin(configuration: kafka, logger: logger)
            .createTopics(
                Array(Set([input, output, batchOutput, forwarded] + hops.flatMap { [$0.input, $0.output] })),
                partitions: partitions)
        let producer = try KafkaProducer(configuration: kafka, logger: logger)
        let bench = KafkaBench(kafka: kafka, producer: producer, logger: logger, size: size, keys: keys)

        print(
            "hallmark bench kafka: \(messages) messages of \(size) B, \(keys) keys, \(partitions) partitions, "
                + "stage in flight \(inFlight), librdkafka \(KafkaLibrary.versionString)")
        let produced = try await bench.produce(count: messages, topic: input, window: 10_000)
        print(String(format: "raw produce (acked):        %9.0f msgs/s", produced))
        let consumed = try await bench.consume(count: messages, topic: input)
        print(String(format: "raw consume:                %9.0f msgs/s", consumed))
        let raw = try await bench.forward(count: messages, input: input, output: forwarded)
        print(String(format: "raw forward (one hop):      %9.0f msgs/s", raw))
        let stage = try await bench.stageThroughput(count: messages, input: input, output: output, inFlight: inFlight)
        print(String(format: "stage loop (no-op, lanes):  %9.0f msgs/s", stage))
        if let h = registry.snapshot().histograms.first(where: { $0.name == "hallmark_stage_processing_ns" }) {
            print(String(format: "  per message (process + acked send): p50 %.2f ms, p99 %.2f ms", h.p50 / 1e6, h.p99 / 1e6))
        }
        // The services' busy stages (intake, tokens, joiner, receipts) run partition batches.
        let batches = try await bench.stageThroughput(
            count: messages, input: input, output: batchOutput, inFlight: inFlight, dispatch: .partitionBatches)
        print(String(format: "stage loop (no-op, batches):%9.0f msgs/s", batches))
        print("send → read latency at \(latencyRate) msgs/s, \(latencySeconds) s each:")
        for hop in hops {
            let latency = try await bench.latency(
                rate: latencyRate, seconds: latencySeconds, input: hop.input, output: hop.output, hop: hop.0)
            let name = hop.0.name.padding(toLength: 16, withPad: " ", startingAt: 0)
            let figures = String(format: "p50 %7.2f ms, p99 %7.2f ms", latency.p50, latency.p99)
            print("  \(name)\(figures) (\(latency.count) messages)")
        }
        print(
            String(
                format:
                    "ratios: stage/raw forward %.2f with key lanes, %.2f with partition batches (goal ≥ 0.6); stage/raw consume %.2f, stage/raw produce %.2f (key lanes)",
                stage / raw, batches / raw, stage / consumed, stage / produced))
        await producer.close()
    }
}
