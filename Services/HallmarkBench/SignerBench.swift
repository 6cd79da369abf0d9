import Foundation
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import Logging
import SignerCore

/// The phases of `hallmark bench signer`.
struct SignerBench {
    let kafka: KafkaConfiguration
    let logger: Logger
    let binary: URL
    let secretsDirectory: URL
    let secret: String

    /// The machine's bound: PBKDF2 (200,000 iterations) derivations per second with one
    /// thread per core, each running pairs through the batched fast path. It also signs the
    /// load's requests, so the bound is measured on exactly the work the service repeats.
    static func signMeasuringBound(count: Int, secret: String, threads: Int) -> (requests: [Message<VerifyRequest>], rate: Double)
    {
        let base = Date()
        let plans: [(headers: [String: String], body: Data)] = (0..<count).map { i in
            // Distinct timestamps → distinct salts: no key is derived twice.
            let headers = [
                "Content-Type": "application/json", "SmileID-Partner-ID": "partner-\(i % 64)",
                "SmileID-Source-SDK": "iOS",
                "SmileID-Request-Timestamp": Timestamp.format(base.addingTimeInterval(Double(i) / 1000)),
            ]
            return (headers, Data(#"{"job_id":"job-\#(i)","user_id":"user-\#(i % 97)"}"#.utf8))
        }
        let next = NextIndex(count: count)
        let start = ContinuousClock.now
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            while let range = next.take(2) {
                let batch = range.map {
                    SmileIDSignature.Request(
                        secret: secret, timestamp: plans[$0].headers["SmileID-Request-Timestamp"]!,
                        headers: plans[$0].headers, payload: plans[$0].body)
                }
                next.store(SmileIDSignature.signBatch(batch).map { (try? $0.get()) ?? "" }, at: range)
            }
        }
        let rate = Double(count) / (ContinuousClock.now - start).seconds
        let requests = plans.enumerated().map { i, plan in
            var headers = plan.headers
            headers["SmileID-Request-Mac"] = next.macs[i]
            return Message(
                VerifyRequest(
                    method: "POST", path: "/v1/submit_job", headers: headers, bodyB64: plan.body.base64EncodedString()))
        }
        return (requests, rate)
    }

    /// PBKDF2 derivations per second with one thread per core running pairs through the
    /// batched fast path, for about `seconds`: the bound, measured right before and after a
    /// phase. `wall` is what this shared machine gave; `cpu` is per CPU second times the
    /// cores, the bound had the cores been ours alone.
    static func measureBound(seconds: Double, threads: Int) -> (wall: Double, cpu: Double) {
        let deadline = ContinuousClock.now + .seconds(seconds)
        let tally = DerivationTally()
        let start = ContinuousClock.now
        let cpuStart = ProcessCPU.seconds()
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            var n = 0
            while ContinuousClock.now < deadline {
                let salts = [Data("bound-\(t)-\(n)".utf8), Data("bound-\(t)-\(n + 1)".utf8)]
                _ = try? PBKDF2.deriveBatch(
                    salts.map {
                        PBKDF2.Request(password: Data("bench".utf8), salt: $0, iterations: SmileIDSignature.iterations)
                    })
                n += 2
                tally.add(2)
            }
        }
        let done = Double(tally.value)
        let cpu = ProcessCPU.seconds() - cpuStart
        return (done / (ContinuousClock.now - start).seconds, cpu > 0 ? done / cpu * Double(threads) : 0)
    }

    /// The median of `samples` single derivations on this thread, in milliseconds.
    static func singleDerivation(samples: Int) -> Double {
        let times = (0..<max(1, samples)).map { n in
            let start = ContinuousClock.now
            _ = try? PBKDF2.deriveSHA256(
                password: Data("bench".utf8), salt: Data("single-\(n)".utf8),
                iterations: SmileIDSignature.iterations)
            return (ContinuousClock.now - start).seconds * 1000
        }.sorted()
        return times[times.count / 2]
    }

    /// Waits until the group's rebalances settled: every partition of `topics` held, and by
    /// each replica some (as many as there are partitions to go round).
    private func waitForAssignment(of processes: [BenchProcess], topics: [String], partitions: Int) async throws {
        let all = Set(topics.flatMap { topic in (0..<partitions).map { "\(topic)/\($0)" } })
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let held = processes.map(\.assignedPartitions)
            let busy = held.filter { !$0.isEmpty }.count
            if held.reduce(into: Set<String>(), { $0.formUnion($1) }) == all, busy == min(processes.count, all.count) { return }
            guard ContinuousClock.now < deadline else { throw BenchError("the signers never shared out the partitions") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Sends the requests to `replicas` fresh signers (fresh topics and schema), all at once or
    /// at `pace` msgs/s; throughput from the first send to the last verdict, latency per
    /// request from its send to its verdict.
    /// With `warmup`, the first that many requests' latencies are left out of the figures.
    func run(
        _ requests: [Message<VerifyRequest>], replicas: Int, partitions: Int, pace: Double? = nil, warmup: Int = 0
    ) async throws
        -> Phase
    {
        let run = String(UUID().uuidString.prefix(8)).lowercased()
        let (input, output) = ("bench.signer.\(run).verify.in", "bench.signer.\(run).verify.out")
        try await KafkaAdmin(configuration: kafka, logger: logger)
            .createTopics(
                [input, output, "bench.signer.\(run).sign.in", "bench.signer.\(run).sign.out"],
                partitions: partitions)
        let base = [
            "HALLMARK_SIGNER_VERIFY_INPUT": input, "HALLMARK_SIGNER_VERIFY_OUTPUT": output,
            "HALLMARK_SIGNER_SIGN_INPUT": "bench.signer.\(run).sign.in",
            "HALLMARK_SIGNER_SIGN_OUTPUT": "bench.signer.\(run).sign.out",
            "HALLMARK_SIGNER_SCHEMA": "bench_signer_\(run)", "HALLMARK_SIGNER_SECRETS_DIR": secretsDirectory.path,
            "HALLMARK_GROUP_ID": "bench-signer-\(run)", "HALLMARK_LOG_LEVEL": "info",
            // The same signed requests serve every phase (each has its own replay table).
            "HALLMARK_SIGNER_WINDOW_SECONDS": "3600",
        ]
        // The signer's own defaults: nothing here is tuned for the bench.
        let env = base
        var processes: [BenchProcess] = []
        defer { processes.forEach { $0.stop() } }
        for i in 0..<replicas {
            processes.append(
                try BenchProcess(binary: binary, environment: env.merging(["HALLMARK_INSTANCE": "bench-\(i)"]) { $1 }))
        }
        for p in processes { try await p.waitForLog("stage started") }
        try await waitForAssignment(of: processes, topics: [input, "bench.signer.\(run).sign.in"], partitions: partitions)

        let reader = try KafkaConsumer(
            configuration: kafka, groupID: "bench-reader-\(run)", topics: [output],
            bufferCapacity: 8192, wakesOnProduce: true, logger: logger)
        try reader.start()
        let producer = try KafkaProducer(configuration: kafka, logger: logger)
        let sentAt = SentTimes()
        let cpuBefore = processes.map(\.cpuSeconds).reduce(0, +)
        let benchBefore = ProcessCPU.seconds(), machineBefore = MachineCPU.now()
        let start = ContinuousClock.now
        let sending = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (i, r) in requests.enumerated() {
                    if let pace { try await Task.sleep(until: start + .seconds(Double(i) / pace)) }
                    let value = try JSONCoding.encode(r)
                    let key = Array((r.headers["SmileID-Partner-ID"] ?? "").utf8)
                    sentAt.set(r.id.text, .now)
                    group.addTask { try await producer.send(topic: input, key: key, value: value) }
                }
                try await group.waitForAll()
            }
        }
        var latencies: [Double] = []
        var accepted = 0
        var received = 0
        let warm = Set(requests.prefix(warmup).map(\.id.text))
        let timeout = Task {
            try? await Task.sleep(for: .seconds(600))
            reader.beginClose()
        }
        for await message in reader.messages {
            guard let object = try? JSONSerialization.jsonObject(with: Data(message.value)) as? [String: Any],
                let id = object["request_id"] as? String, let sent = sentAt.get(id)
            else { continue }
            received += 1
            if !warm.contains(id) { latencies.append((ContinuousClock.now - sent).seconds * 1000) }
            if object["verdict"] as? String == "accepted" { accepted += 1 }
            if received == requests.count { break }
        }
        let elapsed = ContinuousClock.now - start
        let cpu = processes.map(\.cpuSeconds).reduce(0, +) - cpuBefore
        let benchCPU = ProcessCPU.seconds() - benchBefore
        let machineCPU = MachineCPU.busySeconds(from: machineBefore, to: MachineCPU.now())
        timeout.cancel()
        try await sending.value
        await reader.close()
        await producer.close()
        let p = BenchExchange.percentiles(latencies)
        let seconds = elapsed.seconds
        return Phase(
            rate: Double(received) / seconds, p50: p.p50, p90: p.p90, p99: p.p99,
            max: p.max, accepted: accepted,
            cpuPerMessage: cpu / Double(max(1, received)), signerCores: cpu / seconds,
            benchCores: benchCPU / seconds,
            otherCores: machineCPU.map { max(0, $0 - cpu - benchCPU) / seconds })
    }

    /// One phase's figures. Cores are CPU seconds per second of the phase.
    struct Phase {
        var rate: Double
        var p50: Double
        var p90: Double
        var p99: Double
        var max: Double
        var accepted: Int
        var cpuPerMessage: Double
        /// The signer processes.
        var signerCores: Double
        /// This bench (the load's producer and the verdicts' reader).
        var benchCores: Double
        /// Everything else on the machine (the broker, PostgreSQL); nil off Linux.
        var otherCores: Double?
    }
}
