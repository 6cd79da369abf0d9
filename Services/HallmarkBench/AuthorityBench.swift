import HallmarkClient
import AuthorityCore
import Foundation
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import HallmarkPostgres
import HallmarkRuntime
import Logging
import ServiceLifecycle
import Synchronization

/// The measurements behind `hallmark bench authority`.
///
/// Capacity is measured the way a consumer's is: a backlog of tokens waits in the request
/// topic, the token stage starts, and the clock runs from its first acknowledged verdict to
/// its last. Latency is measured separately, at a steady offered rate below capacity, from
/// the moment a request is handed to the producer to the moment its verdict is read back.
struct AuthorityBench {
    let kafka: KafkaConfiguration
    let producer: KafkaProducer
    let pool: PostgresPool
    let database: StageDatabase
    let configuration: AuthorityConfiguration
    let secrets: AuthoritySecrets
    let logger: Logger
    /// Tokens judged so far (the authority's validations counter).
    let processed: @Sendable () -> Int

    struct Request: Sendable {
        let id: String
        let bytes: [UInt8]
        let key: [UInt8]
    }

    struct Result {
        var rate: Double
        /// CPU the bench process (the stage, mostly) used while draining, in cores.
        var cores: Double
        var drained: Int
        var passed: Int
        var offeredRate: Double
        var p50: Double
        var p99: Double
        var samples: [BirthmarkToken]
        var masters: [Int: Data]
    }

    /// Provisions cameras through the stage, drains a backlog of `count` tokens (both formats),
    /// then sends `paced` more at `rate`/s for latency, and checks every verdict.
    /// With `carrier` above 1, the requests travel as the aggregator sends them: that many in
    /// each `hallmark.token.request.batch.v1` (DESIGN §2), paced carrier by carrier.
    func run(
        count: Int, paced: Int, rate: Double, cameras: Int, batch: (size: Int, workers: Int),
        keyByCamera: Bool, carrier: Int
    ) async throws -> Result {
        var stageConfig = StageConfiguration(
            service: "authority", inputs: [], groupID: "bench-authority-\(UUID())",
            maxBatch: batch.size, batchWorkers: batch.workers)
        stageConfig.instance = "bench"
        stageConfig.maxMessageBytes = kafka.maxMessageBytes
        let services = try await AuthorityService.services(
            configuration: configuration, secrets: secrets, database: database,
            transport: .kafka(kafka, producer: producer, logger: logger), stage: stageConfig, logger: logger)
        // The token stage is last; everything else (provisioning among it) starts now.
        var running = services.dropLast().map { service in Task { try await service.run() } }
        defer { running.reversed().forEach { $0.cancel() } }
        let files = try await provision(cameras)
        let (requests, samples) = try makeRequests(count + paced, from: files, keyByCamera: keyByCamera)
        let backlog = try Self.carry(Array(requests.prefix(count)), size: carrier)
        let later = try Self.carry(Array(requests.dropFirst(count)), size: carrier)
        try await send(backlog.units)

        let base = processed()
        running.append(Task { [services] in try await services.last!.run() })
        guard let firstCount = try await waitForProcessed(every: .milliseconds(1), timeout: .seconds(60), until: { $0 > base })
        else { throw AuthorityClientError(.timeout, "the token stage answered nothing within 60 s") }
        let first = ContinuousClock.now
        let cpuBefore = ProcessCPU.seconds()
        guard try await waitForProcessed(every: .milliseconds(20), timeout: .seconds(600), until: { $0 >= base + count }) != nil
        else { throw AuthorityClientError(.timeout, "the backlog was not drained within 600 s") }
        let drainSeconds = (ContinuousClock.now - first).seconds
        let cores = (ProcessCPU.seconds() - cpuBefore) / max(drainSeconds, 1e-9)
        let drained = count - (firstCount - base)

        let watcher = try AnswerWatcher(kafka: kafka, topics: [configuration.tokenOutput], fromStart: true, logger: logger)
        let reader = Task { await watcher.run() }
        defer { reader.cancel() }
        _ = await watcher.wait(timeout: .seconds(120)) { $0.arrivals().count >= backlog.units.count }
        let sentAt = SendLog()
        let pacedStart = ContinuousClock.now
        try await send(later.units, rate: rate / Double(max(carrier, 1)), log: sentAt)
        let offered = Double(requests.count - count) / max((ContinuousClock.now - pacedStart).seconds, 1e-9)
        let units = backlog.units + later.units
        _ = await watcher.wait(timeout: .seconds(120)) { $0.arrivals().count >= units.count }

        // A carrier's requests share its send and answer times.
        let arrivals = watcher.arrivals(), sent = sentAt.snapshot()
        let latencies = later.units.flatMap { unit -> [Double] in
            guard let a = arrivals[unit.id], let s = sent[unit.id] else { return [] }
            return Array(repeating: (a - s).seconds * 1e3, count: later.items[unit.id] ?? 1)
        }
        let p = BenchExchange.percentiles(latencies)
        let passed = units.reduce(0) { n, unit in
            guard let bytes = watcher.answers(for: unit.id).first else { return n }
            if let single = try? JSONDecoder().decode(TokenResult.self, from: Data(bytes)) { return single.valid ? n + 1 : n }
            let carried = (try? JSONDecoder().decode(TokenResultBatch.self, from: Data(bytes)))?.items ?? []
            return n + carried.filter(\.valid).count
        }
        await watcher.close()
        let tables = KeyTableStore(pool: pool, schema: configuration.schema, secrets: secrets)
        try await tables.load(strict: true)
        let masters = try await tables.masterKeys(for: Array(0..<tables.count))
        return Result(
            rate: Double(drained) / max(drainSeconds, 1e-9), cores: cores, drained: drained, passed: passed,
            offeredRate: offered, p50: p.p50, p99: p.p99, samples: samples, masters: masters)
    }

    private func provision(_ cameras: Int) async throws -> [ProvisioningFile] {
        let watcher = try AnswerWatcher(
            kafka: kafka, topics: [configuration.provisionOutput], fromStart: true,
            logger: logger)
        let reader = Task { await watcher.run() }
        defer { reader.cancel() }
        let provisioner = CameraProvisioner(producer: producer, watcher: watcher, topic: configuration.provisionInput)
        var files: [ProvisioningFile] = []
        try await withThrowingTaskGroup(of: ProvisioningFile?.self) { group in
            for i in 0..<cameras {
                group.addTask {
                    guard case .provisioned(let f) = try await provisioner.provision(serial: "BENCH-\(i)-\(UUID())")
                    else { return nil }
                    return f
                }
            }
            for try await f in group { if let f { files.append(f) } }
        }
        await watcher.close()
        guard !files.isEmpty else { throw AuthorityClientError(.failed, "no camera was provisioned") }
        return files
    }

    /// Alternates the two token formats over the cameras; keeps up to 2,000 tokens as samples.
    private func makeRequests(
        _ n: Int, from files: [ProvisioningFile], keyByCamera: Bool
    ) throws
        -> ([Request], [BirthmarkToken])
    {
        var requests: [Request] = [], samples: [BirthmarkToken] = []
        requests.reserveCapacity(n)
        for i in 0..<n {
            let cam = files[i % files.count]
            let id = MessageID.random()
            let key = Array((keyByCamera ? cam.deviceSerial : id.text).utf8)
            let token: BirthmarkToken = i % 2 == 0 ? .reference(try cam.referenceRequest().token) : .mobile(try cam.mobileToken())
            switch token {
            case .reference(let t):
                requests.append(Request(id: id.text, bytes: try ProvisioningFile.requestBytes(t, id: id), key: key))
            case .mobile(let t):
                requests.append(Request(id: id.text, bytes: try ProvisioningFile.requestBytes(t, id: id), key: key))
            }
            if samples.count < 2_000 { samples.append(token) }
        }
        return (requests, samples)
    }

    /// `requests` in carriers of `size` (as they are when `size` is 1), with how many requests
    /// each carrier holds, by its id.
    static func carry(_ requests: [Request], size: Int) throws -> (units: [Request], items: [String: Int]) {
        guard size > 1 else { return (requests, [:]) }
        var units: [Request] = [], items: [String: Int] = [:]
        for start in stride(from: 0, to: requests.count, by: size) {
            let chunk = requests[start..<min(start + size, requests.count)]
            let id = MessageID.random()
            let carriers = try BatchCarrier.outputs(
                topic: "-", key: id.text, items: chunk.map(\.bytes), maxBytes: .max, id: id
            ) { id in EnvelopeHeader(schema: TokenRequestBatch.schemaName, id: id) }
            units.append(Request(id: id.text, bytes: carriers[0].value, key: Array(id.text.utf8)))
            items[id.text] = chunk.count
        }
        return (units, items)
    }

    /// Sends every request (4,000 unacknowledged at most), paced at `rate`/s when given.
    private func send(_ requests: [Request], rate: Double? = nil, log: SendLog? = nil) async throws {
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, request) in requests.enumerated() {
                if i >= 4_000 { try await group.next() }
                if let rate {
                    let due = start + .nanoseconds(Int64(Double(i) / rate * 1e9))
                    if due > ContinuousClock.now { try await Task.sleep(until: due) }
                }
                group.addTask {
                    log?.record(request.id)
                    try await producer.send(topic: configuration.tokenInput, key: request.key, value: request.bytes)
                }
            }
            try await group.waitForAll()
        }
    }

    /// Reads the processed count every `interval` until `done` holds; the count then, or nil
    /// at the timeout.
    private func waitForProcessed(
        every interval: Duration, timeout: Duration,
        until done: (Int) -> Bool
    ) async throws -> Int? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let n = processed()
            if done(n) { return n }
            try await Task.sleep(for: interval)
        }
        return nil
    }

    /// Single-core rate of `BirthmarkTokenValidator.open` (HKDF derive + AES-GCM open) over
    /// the samples, for at least a second.
    static func inProcessRate(samples: [BirthmarkToken], masters: [Int: Data]) throws -> Double {
        guard !samples.isEmpty else { return 0 }
        // Per second of this thread's CPU, not of the clock: the stack winding down (PostgreSQL
        // vacuuming the replay records, the stage's consumers leaving) shares the cores, and
        // by the clock the same loop measured anywhere from 85k to 138k tokens/s.
        var opened = 0
        let start = ContinuousClock.now, cpu = ProcessCPU.threadSeconds()
        while ProcessCPU.threadSeconds() - cpu < 1, ContinuousClock.now - start < .seconds(10) {
            for token in samples {
                if case .success = BirthmarkTokenValidator.open(token, masterKeys: masters) { opened += 1 }
            }
        }
        guard opened > 0 else { throw AuthorityClientError(.failed, "no sample opened in process") }
        return Double(opened) / max(ProcessCPU.threadSeconds() - cpu, 1e-9)
    }
}

/// When each request was handed to the producer.
final class SendLog: Sendable {
    private let sent = Mutex<[String: ContinuousClock.Instant]>([:])
    func record(_ id: String) { let now = ContinuousClock.now; sent.withLock { $0[id] = now } }
    func snapshot() -> [String: ContinuousClock.Instant] { sent.withLock { $0 } }
}
