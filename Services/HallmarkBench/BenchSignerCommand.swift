import ArgumentParser
import Foundation
import HallmarkCrypto
import HallmarkKafka
import Logging

/// `hallmark bench signer`: verify requests through `hallmark-signer` processes on the real
/// broker and PostgreSQL, with 1 and then 2 replicas, beside the machine's bound (batched
/// PBKDF2 derivations per second across all cores) measured in the same run.
package struct BenchSignerCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "signer",
        abstract: "Signer verify throughput and latency (1 and 2 replicas) against the PBKDF2 bound.")

    @Option(
        help:
            "Verify requests per phase, each needing one PBKDF2 derivation (default: about 20 s of work at this machine's bound, 100...2000)."
    )
    var messages: Int?
    @Option(help: "Replica counts to run, comma-separated.") var replicas = "1,2"
    @Option(help: "Partitions of the bench topics (default: HALLMARK_KAFKA_PARTITIONS).")
    var partitions = BenchCommand.defaultPartitions
    @Option(help: "Seconds of steady paced load in each latency phase, after the warm-up.") var latencySeconds = 30.0
    @Option(help: "Seconds of paced load before latency is recorded (group assignment, caches, pools).") var warmupSeconds = 5.0
    @Option(help: "The hallmark-signer binary (default: beside this hallmark binary).") var signerBinary: String?

    package init() {}

    package func run() async throws {
        var logger = Logger(label: "hallmark.bench")
        logger.logLevel = .warning
        let kafka = try KafkaConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        let binary =
            signerBinary.map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("hallmark-signer")
        let counts = replicas.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let cores = ProcessInfo.processInfo.activeProcessorCount

        // A throw-away secret, never printed; removed at the end.
        let secret = Base64.encode(try SecureRandom.bytes(32))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hallmark-bench-secrets-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(secret.utf8).write(to: folder.appendingPathComponent("bench"))
        try Data("bench".utf8).write(to: folder.appendingPathComponent("signing-version"))

        // Enough distinct requests for the throughput phases and a paced phase at half the bound.
        let estimate = SignerBench.measureBound(seconds: 2, threads: cores).wall
        let messages = self.messages ?? min(2_000, max(100, Int((estimate * 20).rounded())))
        printNow(
            "hallmark bench signer: \(messages) verify requests per phase, \(partitions) partitions, \(cores) cores, SHA-NI \(PBKDF2.hasSHAExtensions), batch \(PBKDF2.preferredBatch)"
        )
        // The floor under any verify's latency: one derivation alone on an idle core.
        let single = SignerBench.singleDerivation(samples: 5)
        printNow(String(format: "one derivation alone: %.1f ms (the least any verify can take)", single))
        let pacedCount = Int(((latencySeconds + warmupSeconds) * estimate / 2).rounded(.up))
        let (requests, bound) = SignerBench.signMeasuringBound(count: max(messages, pacedCount), secret: secret, threads: cores)
        printNow(String(format: "bound while signing the load: batched PBKDF2 on %d threads: %.1f derivations/s", cores, bound))
        let bench = SignerBench(kafka: kafka, logger: logger, binary: binary, secretsDirectory: folder, secret: secret)
        for n in counts {
            let before = SignerBench.measureBound(seconds: 3, threads: cores)
            let r = try await bench.run(Array(requests.prefix(messages)), replicas: n, partitions: partitions)
            let after = SignerBench.measureBound(seconds: 3, threads: cores)
            let wall = (before.wall + after.wall) / 2
            let cpuBound = (before.cpu + after.cpu) / 2
            let label = n == 1 ? "1 replica " : "\(n) replicas"
            printNow(
                String(
                    format:
                        "%@ throughput: %6.1f msgs/s; bound around it %6.1f/s → %3.0f%%; p50 %.0f ms, p99 %.0f ms (whole load at once); %d/%d accepted",
                    label, r.rate, wall, 100 * r.rate / wall, r.p50, r.p99, r.accepted, messages))
            printNow(
                String(
                    format:
                        "%@ CPU: signer %.2f ms per message vs bound %.2f ms per derivation → %3.0f%% of the CPU goes to PBKDF2 (bound on idle cores %.1f/s)",
                    label, r.cpuPerMessage * 1000, 1000 * Double(cores) / cpuBound,
                    100 * (Double(cores) / cpuBound) / max(r.cpuPerMessage, 1e-9), cpuBound))
            if let other = r.otherCores {
                // The bound is every core doing PBKDF2; whatever the broker, PostgreSQL and this
                // client used during the phase was not available to the signer.
                let left = max(0, Double(cores) - other - r.benchCores)
                printNow(
                    String(
                        format:
                            "%@ cores during the phase: signer %.2f, broker + PostgreSQL + rest %.2f, this bench %.2f, idle %.2f of %d",
                        label, r.signerCores, other, r.benchCores,
                        max(0, Double(cores) - r.signerCores - other - r.benchCores), cores))
                printNow(
                    String(
                        format: "%@ bound on the %.2f cores the others left: %.1f/s → throughput is %3.0f%% of it",
                        label, left, wall * left / Double(cores), 100 * r.rate / max(wall * left / Double(cores), 1e-9)))
            }
            let rate = wall / 2
            let paced = Array(requests.prefix(Int(((latencySeconds + warmupSeconds) * rate).rounded())))
            guard paced.count > 1 else { continue }
            let l = try await bench.run(
                paced, replicas: n, partitions: partitions, pace: rate,
                warmup: Int((warmupSeconds * rate).rounded()))
            printNow(
                String(
                    format:
                        "%@ latency at %.1f msgs/s (half the bound) over %.0f s after a %.0f s warm-up: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms; %.1f msgs/s out; %d/%d accepted",
                    label, rate, latencySeconds, warmupSeconds, l.p50, l.p90, l.p99, l.max, l.rate, l.accepted, paced.count))
            printNow(
                String(
                    format: "%@ latency over one derivation alone: p50 %.2f×, p99 %.2f× (%.1f ms above it at p99)",
                    label, l.p50 / single, l.p99 / single, l.p99 - single))
        }
        printNow("goal: throughput at least 85% of the bound")
    }
}
