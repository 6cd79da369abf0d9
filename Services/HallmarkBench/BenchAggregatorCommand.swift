import AggregatorCore
import ArgumentParser
import AuthorityCore
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import Logging
import ServiceLifecycle

/// `hallmark bench aggregator`: a `hallmark-authority` and a `hallmark-aggregator` process on
/// the real broker and PostgreSQL, with provisioned cameras: bundles per second end to end
/// (submission → authority → log → answer) all at once and at a steady pace (p50/p90/p99),
/// verification queries with proofs per second, and, beside them in the same run, the log's
/// append in-process (the frontier alone, and the writer's batches into PostgreSQL). Each load
/// phase, and a stretch with no traffic, prints what it cost per bundle (``PhaseWork``):
/// messages by topic, PostgreSQL's work and every process's CPU, with the cost ratios of #55.
package struct BenchAggregatorCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "aggregator",
        abstract: "Birthmark bundles end to end, paced latency, verification queries and in-process log append.")

    /// #55's goal for PostgreSQL rows written per bundle all at once: half of the 12.02 first
    /// measured (`d792ca40`: 9 inserted, 2.02 updated, 1 deleted).
    static let rowsGoal = 6.0

    @Option(help: "Cameras the bundles come from.") var cameras = 40
    @Option(help: "Bundles sent at once.") var bundles = 20_000
    @Option(help: "Bundles per second in the paced phase.") var rate = 2_500.0
    @Option(help: "Seconds of the paced phase whose latencies count.") var pacedSeconds = 10.0
    @Option(help: "Seconds of paced load before latencies count.") var warmupSeconds = 3.0
    @Option(help: "Bundles per second in the low-load phase, timed hop by hop.") var lowRate = 10.0
    @Option(help: "Seconds of the low-load phase (its first second is a warm-up).") var lowSeconds = 6.0
    @Option(help: "Seconds with no traffic, to measure what the stack burns idle.") var idleSeconds = 10.0
    @Flag(
        help:
            "Search for the highest paced rate the stack holds for --steady-seconds (p99 < 1 s, every bundle answered, the lag not growing), as a share of the all-at-once rate."
    ) var steady = false
    @Option(help: "Seconds of each paced stream of the --steady search (after --warmup-seconds).") var steadySeconds = 60.0
    @Option(help: "Paced streams the --steady search runs (the first at 0.8 of the all-at-once rate, then bisection).")
    var steadyProbes = 4
    @Option(help: "Verification queries sent at once.") var queries = 20_000
    @Option(help: "Leaves appended in-process.") var leaves = 200_000
    @Option(help: "Concurrent readers of tiles, from PostgreSQL and through nginx.") var tileReaders = 4
    @Option(help: "Seconds of tile reads.") var tileSeconds = 5.0
    @Option(help: "Local witnesses for the checkpoint round trip.") var witnesses = 3
    @Option(help: "Checkpoints sent to the witnesses.") var witnessRounds = 20
    @Flag(
        inversion: .prefixedNo,
        help:
            "The aggregator process asks --witnesses local witnesses to cosign every second and keeps a tile directory, as a public log does."
    ) var witnessedAggregator = true
    @Option(
        help:
            "Leaves put in the log before the aggregator starts (0, or at least 100,000; random, 1,000 a batch through the log writer in this process): how the costs grow with the log's size."
    ) var seedLeaves = 0
    @Flag(
        inversion: .prefixedNo,
        help:
            "After the paced phases, the floor at their half and 5% rates: what a bare chain of the pipeline's shape and carriers costs the broker and its clients (BrokerFloor)."
    ) var floor = true
    @Option(help: "Partitions of the bench topics (default: HALLMARK_KAFKA_PARTITIONS).")
    var partitions = BenchCommand.defaultPartitions
    @Option(help: "Directory of hallmark-authority and hallmark-aggregator (default: beside this binary).") var binaries: String?

    package init() {}

    package func validate() throws {
        guard seedLeaves == 0 || seedLeaves >= 100_000 else {
            throw ValidationError("--seed-leaves is 0 or at least 100,000")
        }
        guard steadySeconds >= 10, (1...20).contains(steadyProbes) else {
            throw ValidationError("--steady-seconds is at least 10 and --steady-probes 1 to 20")
        }
    }

    package func run() async throws {
        var logger = Logger(label: "hallmark.bench")
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        let kafka = try KafkaConfiguration.fromEnvironment(env)
        let directory =
            BenchProcess.directory(binaries)
        let run = String(UUID().lowercasedText.prefix(8))
        let world = try await AggregatorBench.World(run: run, kafka: kafka, partitions: partitions, logger: logger)
        defer { world.removeFiles() }
        let authority = try world.startAuthority(from: directory)
        defer { authority.stop() }
        var publicLog: [String: String] = [:]
        var witnessServers: [ServiceGroup] = []
        if witnessedAggregator {
            let (servers, policy) = try await AggregatorBench.startWitnesses(witnesses, world: world)
            witnessServers = servers
            let policyFile = world.folder.appendingPathComponent("witness-policy")
            try Data(policy.utf8).write(to: policyFile)
            publicLog = [
                "HALLMARK_AGGREGATOR_WITNESS_POLICY_FILE": policyFile.path,
                "HALLMARK_AGGREGATOR_TILES_DIR": world.folder.appendingPathComponent("tiles").path,
            ]
        }
        defer { for group in witnessServers { Task { await group.triggerGracefulShutdown() } } }
        if seedLeaves > 0 {
            let seeded = try await world.seedLog(seedLeaves, logger: logger)
            printNow(
                String(
                    format:
                        "seeded log: %d leaves before the aggregator starts (%.0f leaves/s); in-process, early against late: writer %.0f leaves/s over the first %d batches, %.0f over the last (%.2f×); lookups with inclusion proofs from PostgreSQL %.0f/s at %d leaves, %.0f/s at %d (%.2f×)",
                    seeded.size, seeded.rate, seeded.firstAppend, AggregatorBench.World.timedBatches, seeded.lastAppend,
                    seeded.lastAppend / seeded.firstAppend, seeded.earlyProofs, seeded.earlySize, seeded.lateProofs, seeded.size,
                    seeded.lateProofs / seeded.earlyProofs))
        }
        let aggregator = try world.startAggregator(from: directory, publicLog)
        defer { aggregator.stop() }
        try await authority.waitForLog("stage started")
        try await aggregator.waitForLog("writer leading")
        var load = kafka
        load.properties["enable.idempotence"] = "false"  // see bench gateway: the client's CPU is not the service's
        let producer = try KafkaProducer(configuration: load, logger: logger)
        let bench = AggregatorBench(
            world: world, io: BenchExchange(kafka: kafka, logger: logger, producer: producer, service: aggregator),
            authority: authority)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        printNow(
            "hallmark bench aggregator: \(cores) cores, \(partitions) partitions per topic, linger \(kafka.lingerMilliseconds) ms (HALLMARK_KAFKA_LINGER_MS), \(cameras) cameras"
        )
        let fleet = try await bench.provision(cameras)

        let meter = world.meter(kafka: kafka, logger: logger, aggregator: aggregator, authority: authority)
        let idle = try await meter.measure { try await Task.sleep(for: .seconds(idleSeconds)) }.1
        printNow(
            "no traffic for \(Int(idleSeconds)) s, cores by process: "
                + idle.cpu.sorted { $0.value > $1.value }.map { "\($0.key) \(PhaseWork.format($0.value / idleSeconds))" }
                .joined(separator: ", ")
                + "; this bench's stack (broker, PostgreSQL, aggregator, authority) \(PhaseWork.format((idle.cpuMilliseconds / 1000 - (idle.cpu["bench"] ?? 0)) / idleSeconds)) cores (the goal, ≤ 0.25, is for the whole stack of deploy/local/run)"
        )
        let (low, lowWork) = try await meter.measure {
            try await bench.hops(Int(lowRate * lowSeconds), rate: lowRate, from: fleet)
        }
        let skip = Int(lowRate)  // the first second: group assignment, caches, pools
        func p50(_ values: [Double]) -> Double { BenchExchange.percentiles(Array(values.dropFirst(skip))).p50 }
        printNow(
            String(
                format:
                    "at %.0f bundles/s, p50 per hop over %d bundles (broker create times): intake %.1f ms, authority %.1f ms, joiner + log writer %.1f ms, the bench's read %.1f ms; end to end %.1f ms. A hop is the fetch (held at most %d ms, HALLMARK_KAFKA_FETCH_WAIT_MS), the stage's work and the produce (linger %d ms)",
                lowRate, max(0, low.endToEnd.count - skip), p50(low.intake), p50(low.authority), p50(low.joinerAndWriter),
                p50(low.answerRead), p50(low.endToEnd), kafka.fetchWaitMaxMilliseconds, kafka.lingerMilliseconds))

        let all = try bench.bundles(bundles, from: fleet)
        let (burst, burstWork) = try await meter.measure { try await bench.submit(all, pace: nil) }
        printNow(
            String(
                format:
                    "end to end, all at once: %d bundles in %.1f s = %.0f bundles/s (%d accepted); aggregator %.2f cores, authority %.2f cores, broker+PostgreSQL %@ cores",
                all.count, burst.cost.seconds, burst.rate, burst.accepted, burst.cost.service / burst.cost.seconds,
                burst.authorityCPU / burst.cost.seconds, burst.cost.otherCores.map { String(format: "%.2f", $0) } ?? "?"))
        burstWork.printPerBundle(all.count, "all at once")

        // At the goal's fixed rate; at 5% of what this run measured all at once, what a bundle
        // costs when the fixed costs of time are shared by few; then at half of it, what the
        // tail is below capacity on whatever day the machine has. The 5% stream goes before
        // the half one: Tansu's cost per request grows with the record batches a partition
        // already holds (10,000 single-message batches make a 100/s stream cost it 0.8 of a
        // core instead of 0.15, `deploy/local/tansu-batches`), and the half stream writes tens
        // of thousands; after it, the 5% stream measured that history more than the bundles.
        var pacedWork: [(work: PhaseWork, count: Int, p99: Double)] = []
        for (pace, label) in [(rate, ""), (burst.rate / 20, " (5% of it)"), (burst.rate / 2, " (half the all-at-once rate)")] {
            let paced = try await bench.pacedStream(
                rate: pace, warmup: warmupSeconds, seconds: pacedSeconds, fleet: fleet, meter: meter)
            let counted = paced.counted.compactMap { $0 }
            let p = BenchExchange.percentiles(counted)
            printNow(
                String(
                    format:
                        "end to end at %.0f bundles/s%@: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms over %d bundles (%d accepted of %d)",
                    pace, label, p.p50, p.p90, p.p99, p.max, counted.count, paced.accepted, paced.sent))
            // The fixed rate's cost compares builds when it is below capacity (`--rate 200`): the
            // other two rates follow each run's burst. Over capacity, it says nothing.
            paced.work.printPerBundle(paced.sent, String(format: "at %.0f/s%@", pace, label.isEmpty ? " (fixed)" : ""))
            if !label.isEmpty { pacedWork.append((paced.work, paced.sent, p.p99)) }
        }
        lowWork.printPerBundle(low.endToEnd.count, String(format: "at %.0f/s (the hop phase)", lowRate))
        let perBundle = { (work: PhaseWork, count: Int) in work.cpuMilliseconds / Double(max(count, 1)) }
        let burstCPU = perBundle(burstWork, all.count)
        let (trickle, half) = (pacedWork[0], pacedWork[1])
        // The floor at the same two rates: what a bare chain of the pipeline's shape
        // costs the broker and the bench's own clients per message, over the pipeline's whole
        // cost per bundle all at once.
        var floors: [Double] = []
        // The aggregator process's settings, as it resolves them from the environment it was given.
        let given = env.merging(world.aggregatorEnvironment) { $1 }
        if floor {
            let chain = BrokerFloor(
                kafka: kafka, logger: logger, prefix: "bench.aggregator.\(run)", partitions: partitions, load: producer,
                batchPace: try StageConfiguration.fromEnvironment(given, service: "aggregator", inputs: []).batchPace)
            for (pace, name) in [(burst.rate / 2, "half"), (burst.rate / 20, "trickle")] {
                let r = try await chain.measure(rate: pace, warmup: warmupSeconds, seconds: pacedSeconds, name: name)
                printNow(
                    String(
                        format:
                            "floor at %.0f/s (a bare chain of the pipeline's 4 topics, 3 consumers and 3 producers, its internal hops in carriers at the stages' batch pace, the services' client settings): per message the broker %.2f CPU-ms, the bench's producer, forwarders and reader %.2f; together %.2f of the pipeline's whole cost per bundle all at once (the broker alone %.2f); end to end p50 %.1f ms, p99 %.1f ms over %d messages",
                        pace, r.broker, r.bench, (r.broker + r.bench) / burstCPU, r.broker / burstCPU, r.p50, r.p99,
                        r.count))
                floors.append((r.broker + r.bench) / burstCPU)
            }
        }
        let floorNote = { (i: Int) in floors.count > i ? String(format: "; the floor %.2f", floors[i]) : "" }
        printNow(
            String(
                format:
                    "cost ratios: messages per bundle %.2f (goal ≤ 2.1); PostgreSQL rows written per bundle %.2f (goal ≤ %.1f); CPU per bundle at half / all at once %.2f (goal ≤ 1.25%@), at 5%% / all at once %.2f (goal ≤ 3%@); p99 at half %.0f ms (goal < 250)",
                Double(burstWork.messagesProduced) / Double(all.count),
                Double(burstWork.database.rowsWritten) / Double(all.count), Self.rowsGoal,
                perBundle(half.work, half.count) / burstCPU, floorNote(0), perBundle(trickle.work, trickle.count) / burstCPU,
                floorNote(1), half.p99))

        if steady { try await steadySearch(bench, ceiling: burst.rate, burstCPU: burstCPU, fleet: fleet, meter: meter) }

        let logged = all.flatMap { $0.entries.map(\.imageHash) }
        let verify = try await bench.verify(
            Array(logged.prefix(queries))
                + (0..<max(0, queries - logged.count)).map { _ in
                    Hex.encode(try SecureRandom.bytes(32))
                })
        printNow(
            String(
                format:
                    "verification: %d queries in %.1f s = %.0f queries/s; %d found with proofs that check offline, %d not found; aggregator %.2f cores",
                queries, verify.cost.seconds, verify.rate, verify.verified, verify.notFound,
                verify.cost.service / verify.cost.seconds))
        // The same lookups read in this process, as the verifier's batch workers read them (one
        // connection each): what the stage's own reads allow, without Kafka or JSON. Its workers
        // as the aggregator process resolves them from the environment it was given
        // (HALLMARK_AGGREGATOR_VERIFY_BATCH_WORKERS, else HALLMARK_BATCH_WORKERS, else 4).
        let workers = try StageConfiguration.fromEnvironment(given, service: "aggregator", inputs: [])
            .overriding(for: "verify", in: given).batchWorkers
        let found = try logged.prefix(queries).map { try Hex.decode($0, length: 32) }
        if found.count >= 100 {
            let reads = try await world.proofReads(found, connections: workers)
            printNow(
                String(
                    format:
                        "in-process proof reads from PostgreSQL: %.0f lookups/s with inclusion proofs (%d connections, batches of 100 as the verifier reads them); verification / in-process proof reads = %.2f (goal ≥ 0.5)",
                    reads, workers, verify.rate / reads))
        }

        if witnessedAggregator {
            // What the aggregator did off the append path meanwhile: checkpoints its witnesses
            // cosigned, and the size its tile directory serves.
            let cosigned =
                try await world.pool.query(
                    "SELECT count(DISTINCT tree_size)::int8, coalesce(max(tree_size), 0) FROM \(unescaped: world.aggregator.schema).cosignatures"
                ).decode((Int64, Int64).self).first ?? (Int64(0), Int64(0))
            let served =
                (FileManager.default.contents(atPath: world.folder.appendingPathComponent("tiles/checkpoint").path))
                .flatMap { try? SignedNote.parse(Array($0)) }.flatMap { try? CheckpointText(parsing: $0.text) }?.treeSize ?? 0
            printNow(
                "public log, off the append path: \(cosigned.0) checkpoints cosigned by the \(witnesses) witnesses (largest \(cosigned.1)); the tile directory serves size \(served)"
            )
        }
        let frontier = AggregatorBench.frontierAppend(leaves)
        let appended = try await bench.writerAppend(min(leaves, 50_000))
        let writer = appended.rate
        printNow(
            String(
                format:
                    "in-process append: frontier %.0f leaves/s (root every 1,000); writer batches into PostgreSQL %.0f leaves/s (1,000 per batch, signed checkpoint and note each)",
                frontier, writer))
        let tiles = try await bench.tileReads(
            schema: appended.schema, size: Int(appended.size), readers: tileReaders, seconds: tileSeconds)
        printNow(
            String(
                format: "tiles from PostgreSQL: %.0f full tiles/s (hash tiles and entry bundles, %d readers, %.0f s)", tiles,
                tileReaders, tileSeconds))
        if let served = try await bench.staticTileReads(
            schema: appended.schema, size: Int(appended.size), connections: tileReaders, seconds: tileSeconds)
        {
            printNow(
                String(
                    format:
                        "tiles through nginx from the tile directory: %.0f full tiles/s (%d keep-alive HTTP connections, %.0f s); from PostgreSQL / through nginx = %.3f",
                    served, tileReaders, tileSeconds, tiles / served))
        } else {
            printNow("tiles through nginx: skipped (no nginx; deploy/local/setup installs Debian's)")
        }
        let trips = try await bench.witnessRoundTrips(
            schema: appended.schema, log: appended.log, size: appended.size, witnesses: witnesses, rounds: witnessRounds)
        printNow(
            String(
                format:
                    "witness round trip (%d local witnesses, all cosign each checkpoint): p50 %.1f ms, max %.1f ms over %d checkpoints",
                witnesses, trips[trips.count / 2], trips.last ?? 0, trips.count))
        printNow(
            String(
                format:
                    "ratios: end to end / writer in-process = %.3f; end to end / frontier = %.4f; goals: ≥ 5,000 bundles/s (%.2f×), p99 < 250 ms at 2,500/s, ≥ 10,000 queries/s (%.2f×)",
                burst.rate / writer, burst.rate / frontier, burst.rate / 5000, verify.rate / 10_000))
        await producer.close()
        await world.dropSchemas()
    }

    /// `--steady`: the search's probes, one line each, then the highest rate that held against
    /// the all-at-once rate (goal ≥ 0.8) and what a bundle cost there against the burst.
    private func steadySearch(
        _ bench: AggregatorBench, ceiling: Double, burstCPU: Double, fleet: [ProvisioningFile], meter: PhaseWork.Meter
    ) async throws {
        let rule = AggregatorBench.SteadyRule(seconds: steadySeconds, warmup: warmupSeconds)
        let goal = 0.8
        let (held, failed) = try await bench.steadySearch(
            ceiling: ceiling, goal: goal, probes: steadyProbes, rule: rule, fleet: fleet, meter: meter
        ) { probe in
            printNow(
                String(
                    format:
                        "steady search: %.0f bundles/s (%.2f of all at once) for %.0f s: %d of %d answered, p99 %.0f ms, p50 of the first %.0f s %.1f ms, of the last %.1f ms, CPU per bundle %.2f ms (%.2f× all at once): %@",
                    probe.rate, probe.rate / ceiling, rule.seconds, probe.stream.answered, probe.stream.sent, probe.p99,
                    rule.window,
                    probe.firstP50, probe.lastP50, probe.cpuPerBundle, probe.cpuPerBundle / burstCPU,
                    probe.held ? "holds" : "does not hold"))
            probe.stream.work.printPerBundle(probe.stream.sent, String(format: "at %.0f/s for %.0f s", probe.rate, rule.seconds))
        }
        printNow(
            String(
                format:
                    "steady rate: %.0f bundles/s held for %.0f s (p99 < %.0f ms, lag not growing) = %.2f of the all-at-once rate (goal ≥ %.1f)%@",
                held?.rate ?? 0, rule.seconds, rule.p99Limit, (held?.rate ?? 0) / ceiling, goal,
                failed.map { String(format: "; the lowest rate that did not hold: %.0f/s", $0.rate) } ?? ""))
    }
}
