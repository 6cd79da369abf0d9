import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import Logging

/// `hallmark bench edge`: a `hallmark-authority`, a `hallmark-aggregator` and a `hallmark-edge`
/// process on the real broker and PostgreSQL, with the edge's shipped defaults. In one run:
/// bundles end to end through Kafka alone (as `hallmark bench aggregator` sends them), the
/// same through the edge over HTTP, a paced HTTP load at half that capacity with each submit
/// waiting for its outcome (p50/p90/p99), certificate bundles over HTTP (`/submit-cert`, DESIGN
/// BM-CERT) beside the token bundles, and cached verification reads with proofs. Then the
/// edge's floor: the HTTP and paced phases again through a bare front in its place
/// (``EdgeFloorFront``), printed beside each of the edge's goals.
package struct BenchEdgeCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "edge",
        abstract:
            "Submissions over HTTP beside the Kafka path, paced submit latency, cached verification reads, and the edge's floor."
    )

    @Option(help: "Cameras the bundles come from.") var cameras = 40
    @Option(help: "Bundles per throughput phase (Kafka, then HTTP).") var bundles = 10_000
    // Each submit waits for its outcome (about half a second under load), so 256 cameras at
    // once cap the rate at about 500/s before the edge's cores do; 1,024 make it the cores.
    @Option(help: "HTTP connections of the throughput phase (cameras submitting at once).") var connections = 1024
    @Option(help: "Seconds of the paced phase.") var pacedSeconds = 10.0
    @Option(help: "HTTP connections of the paced phase.") var pacedConnections = 512
    @Option(help: "Hashes the verification reads are spread over.") var verifyHashes = 1_000
    @Option(help: "HTTP connections reading verifications.") var verifyConnections = 64
    @Option(help: "Seconds of verification reads.") var verifySeconds = 5
    @Option(help: "Partitions of the bench topics (default: HALLMARK_KAFKA_PARTITIONS).")
    var partitions = BenchCommand.defaultPartitions
    @Option(help: "Directory of the service executables (default: beside this binary).") var binaries: String?

    package init() {}

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
        // The manufacturer CAs the aggregator trusts: written once the certificate-mode cameras
        // are provisioned (it reads the file when it first meets a certificate bundle).
        let trusted = world.folder.appendingPathComponent("device-cas.pem")
        let aggregator = try world.startAggregator(
            from: directory, ["HALLMARK_AGGREGATOR_DEVICE_CA_FILE": trusted.path])
        defer { aggregator.stop() }
        let port = try HTTPLoad.freePort()
        let g = world.aggregator
        // The shipped defaults but the placement, and the client's address from the header an
        // ingress sets (as deploy/k8s does): each bench camera has its own.
        let edgeSchema = "bench_edge_\(run)"
        let edge = try BenchProcess(
            binary: directory.appendingPathComponent("hallmark-edge"),
            environment: [
                "HALLMARK_EDGE_SUBMISSIONS": g.submissionInput, "HALLMARK_EDGE_SUBMISSION_RESULTS": g.submissionOutput,
                "HALLMARK_EDGE_VERIFY_REQUESTS": g.verifyInput, "HALLMARK_EDGE_VERIFY_RESULTS": g.verifyOutput,
                "HALLMARK_EDGE_CHECKPOINTS": g.checkpoints, "HALLMARK_EDGE_SCHEMA": edgeSchema,
                "HALLMARK_EDGE_HOST": "127.0.0.1", "HALLMARK_EDGE_PORT": String(port),
                "HALLMARK_EDGE_CLIENT_ADDRESS_HEADER": "X-Forwarded-For",
                "HALLMARK_REJECTED_TOPIC": "bench.aggregator.\(run).rejected", "HALLMARK_GROUP_ID": "bench-edge-\(run)",
                "HALLMARK_INSTANCE": "bench-edge", "HALLMARK_LOG_LEVEL": "info",
            ])
        defer { edge.stop() }
        try await authority.waitForLog("stage started")
        try await aggregator.waitForLog("writer leading")
        try await edge.waitForLog("edge listening")
        var load = kafka
        load.properties["enable.idempotence"] = "false"  // see bench gateway: the client's CPU is not the service's
        let producer = try KafkaProducer(configuration: load, logger: logger)
        let bench = AggregatorBench(
            world: world, io: BenchExchange(kafka: kafka, logger: logger, producer: producer, service: aggregator),
            authority: authority)
        let http = EdgeBench(aggregator: bench, edge: edge, port: port)
        let cores = ProcessInfo.processInfo.activeProcessorCount
        printNow(
            "hallmark bench edge: \(cores) cores, \(partitions) partitions per topic, \(cameras) cameras; HTTP by the bench's own keep-alive client (HTTPLoad), the edge with its defaults"
        )
        let fleet = try await bench.provision(cameras)
        let certified = try await bench.provision(cameras, certificate: true)
        guard let ca = certified.first?.certificateChain else {
            throw BenchError("no manufacturer CA came with the certificates")
        }
        try Data(ca.utf8).write(to: trusted, options: .atomic)

        // Every process's CPU in both throughput phases, the edge's beside the services'.
        var meter = world.meter(kafka: kafka, logger: logger, aggregator: aggregator, authority: authority)
        meter.services.append(("edge", edge))
        let (kafkaPath, kafkaWork) = try await meter.measure {
            try await bench.submit(try bench.bundles(bundles, from: fleet), pace: nil)
        }
        printNow(
            String(
                format: "Kafka path, all at once: %d bundles = %.0f bundles/s (%d accepted); aggregator %.2f cores",
                bundles, kafkaPath.rate, kafkaPath.accepted, kafkaPath.cost.service / kafkaPath.cost.seconds))
        kafkaWork.printPerBundle(bundles, "Kafka path")

        let posts = try EdgeBench.posts(try bench.bundles(bundles, from: fleet), offset: 0)
        let (httpPath, httpWork) = try await meter.measure { try await http.submit(posts, connections: connections) }
        printNow(
            String(
                format:
                    "HTTP path, %d connections: %d bundles = %.0f bundles/s (%d accepted); edge %.2f cores, aggregator %.2f cores",
                connections, bundles, httpPath.rate, httpPath.accepted, httpPath.edgeCPU / httpPath.cost.seconds,
                httpPath.cost.service / httpPath.cost.seconds))
        httpWork.printPerBundle(bundles, "HTTP path")

        // Certificate bundles through the same edge: the aggregator checks each certificate's
        // chain, validity and signature, and asks the authority about its handle alone.
        let certificateBundles = try bench.certificateBundles(bundles, from: certified)
        let certificatePosts = try EdgeBench.certificatePosts(certificateBundles, offset: 4 * bundles)
        let (certificatePath, certificateWork) = try await meter.measure {
            try await http.submit(certificatePosts, connections: connections)
        }
        printNow(
            String(
                format:
                    "HTTP path, certificate bundles (/api/v1/submit-cert), %d connections: %d bundles = %.0f bundles/s (%d accepted), %.3f of the token bundles' HTTP path (goal ≥ 0.8); edge %.2f cores, aggregator %.2f cores",
                connections, bundles, certificatePath.rate, certificatePath.accepted, certificatePath.rate / httpPath.rate,
                certificatePath.edgeCPU / certificatePath.cost.seconds,
                certificatePath.cost.service / certificatePath.cost.seconds))
        certificateWork.printPerBundle(bundles, "certificate path")
        let checks = try await EdgeBench.certificateChecks(Array(certificateBundles.prefix(4_000)), trusted: trusted)
        printNow(
            String(
                format:
                    "certificate checks in process (the intake's, one thread, each certificate read once): %.0f bundles/s = %.3f ms each",
                checks, 1000 / checks))

        let rate = max(10, httpPath.rate / 2)
        let paced = try EdgeBench.posts(try bench.bundles(Int(rate * pacedSeconds), from: fleet), offset: bundles)
        let p = try await http.pacedPercentiles(
            paced, rate: rate, connections: pacedConnections,
            printed: "HTTP submit waiting for its outcome at %.0f bundles/s (half the HTTP capacity)")

        let hashes = Array(posts.prefix(verifyHashes).map(\.hash))
        let reads = try await http.verify(hashes, connections: verifyConnections, seconds: verifySeconds)
        printNow(
            String(
                format:
                    "verification over HTTP, cached (answers with proofs, %d hashes, %d connections, by \(reads.client)): %.0f reads/s; edge %.2f cores",
                hashes.count, verifyConnections, reads.rate, reads.edgeCores))
        // The floor: the same pipeline, with a bare front (EdgeFloorFront) in place of the edge.
        edge.stop()
        let floor = try await EdgeBench.startFloor(bench)
        defer { floor.edge.stop() }
        meter.services.removeAll { $0.name == "edge" }
        meter.services.append(("floor's front", floor.edge))
        let frontPosts = try EdgeBench.frontPosts(try bench.bundles(bundles, from: fleet), offset: 2 * bundles)
        let (floorPath, floorWork) = try await meter.measure {
            try await floor.submit(frontPosts, connections: connections)
        }
        let aggregatorPerBundle = (kafkaWork.cpu["aggregator"] ?? 0) / Double(bundles)
        let frontPerSubmission = floorPath.edgeCPU / Double(bundles)
        printNow(
            String(
                format:
                    "floor, HTTP path (a bare HTTP front in place of the edge: SwiftNIO's HTTP/1 server, the services' producer and the edge's answer router; no receipt, no parsing, no checks, no rate limit), %d connections: %d bundles = %.0f bundles/s (%d accepted), %.3f of the Kafka path; the front's CPU per submission %.3f ms = %.2f of the aggregator's per bundle",
                connections, bundles, floorPath.rate, floorPath.accepted, floorPath.rate / kafkaPath.rate,
                frontPerSubmission * 1000, frontPerSubmission / max(aggregatorPerBundle, 1e-9)))
        floorWork.printPerBundle(bundles, "floor's HTTP path")
        let frontPaced = try EdgeBench.frontPosts(
            try bench.bundles(Int(rate * pacedSeconds), from: fleet), offset: 3 * bundles)
        let f = try await floor.pacedPercentiles(
            frontPaced, rate: rate, connections: pacedConnections,
            printed: "floor, submit waiting for its outcome at %.0f bundles/s (the edge's paced rate)")

        let edgePerSubmission = (httpWork.cpu["edge"] ?? 0) / Double(bundles)
        printNow(
            String(
                format:
                    "ratios: HTTP / Kafka = %.3f (goal ≥ 0.75: the edge costs at most 25%%; the floor %.3f); edge CPU per submission / aggregator CPU per bundle (Kafka path) = %.2f (%.3f / %.3f ms; goal ≤ 1; the floor %.2f); p99 at half the HTTP capacity %.0f ms (goal < 300; the floor %.0f); whole machine per bundle, HTTP / Kafka = %.2f (the floor %.2f); verification %.2f× the goal of 20,000 reads/s",
                httpPath.rate / kafkaPath.rate, floorPath.rate / kafkaPath.rate,
                edgePerSubmission / max(aggregatorPerBundle, 1e-9), edgePerSubmission * 1000, aggregatorPerBundle * 1000,
                frontPerSubmission / max(aggregatorPerBundle, 1e-9), p.p99, f.p99,
                httpWork.cpuMilliseconds / max(kafkaWork.cpuMilliseconds, 1e-9),
                floorWork.cpuMilliseconds / max(kafkaWork.cpuMilliseconds, 1e-9), reads.rate / 20_000))
        await producer.close()
        await world.pool.dropBenchSchemas(edgeSchema)
        await world.dropSchemas()
    }
}
