import AuthorityCore
import Foundation
import HallmarkCrypto
import HallmarkEnvelope
import HallmarkKafka
import HallmarkPostgres
import HallmarkRuntime
import Logging
import Synchronization

/// The measurements behind `hallmark bench authority`.
struct AuthorityBench {
    let kafka: KafkaConfiguration
    let producer: KafkaProducer
    let pool: PostgresPool
    let database: StageDatabase
    let configuration: AuthorityConfiguration
    let secrets: AuthoritySecrets
    let logger: Logger

    struct Result {
        var rate: Double
        var passed: Int
        var p50: Double
        var p99: Double
        var samples: [BirthmarkToken]
        var masters: [Int: Data]
    }

    /// Runs the stage in this process, provisions cameras through it, then sends `count`
    /// fresh tokens (both formats) and waits for every verdict.
    func run(count: Int, cameras: Int, inFlight: Int, keyByCamera: Bool) async throws -> Result {
        var stageConfig = StageConfiguration(service: "authority", inputTopics: configuration.inputTopics,
                                             groupID: "bench-authority-\(UUID())", maxInFlight: inFlight)
        stageConfig.instance = "bench"
        let services = try await AuthorityService.services(
            configuration: configuration, secrets: secrets, database: database, kafka: kafka, producer: producer,
            stage: stageConfig, logger: logger)
        let watcher = try AnswerWatcher(kafka: kafka, topics: [configuration.provisionOutput, configuration.tokenOutput],
                                        fromStart: true, logger: logger)
        let reader = Task { await watcher.run() }
        let running = services.map { service in Task { try await service.run() } }
        defer {
            running.reversed().forEach { $0.cancel() }
            reader.cancel()
        }
        let provisioner = CameraProvisioner(producer: producer, watcher: watcher, configuration: configuration)
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
        guard !files.isEmpty else { throw AuthorityClientError(.failed, "no camera was provisioned") }

        var requests: [(id: String, bytes: [UInt8], key: [UInt8])] = []
        var samples: [BirthmarkToken] = []
        requests.reserveCapacity(count)
        for i in 0..<count {
            let cam = files[i % files.count]
            let id = MessageID.random()
            let key = Array((keyByCamera ? cam.deviceSerial : id).utf8)
            if i % 2 == 0 {
                let token = try cam.referenceRequest().token
                requests.append((id, try ProvisioningFile.requestBytes(token, id: id), key))
                if samples.count < 2_000 { samples.append(.reference(token)) }
            } else {
                let token = try cam.mobileToken()
                requests.append((id, try ProvisioningFile.requestBytes(token, id: id), key))
                if samples.count < 2_000 { samples.append(.mobile(token)) }
            }
        }
        let sentAt = SendLog()
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, request) in requests.enumerated() {
                if i >= 4_000 { try await group.next() }
                group.addTask {
                    sentAt.record(request.id)
                    try await producer.send(topic: configuration.tokenInput, key: request.key, value: request.bytes)
                }
            }
            try await group.waitForAll()
        }
        let ids = requests.map(\.id)
        let cameraCount = files.count
        _ = await watcher.wait(timeout: .seconds(600)) { w in w.arrivals().count >= ids.count + cameraCount }
        let arrivals = watcher.arrivals()
        let sent = sentAt.snapshot()
        var latencies: [Double] = []
        var last = start
        var passed = 0
        for id in ids {
            guard let arrived = arrivals[id], let s = sent[id] else { continue }
            latencies.append(Double((arrived - s).components.attoseconds) / 1e15 + Double((arrived - s).components.seconds) * 1e3)
            last = max(last, arrived)
            if let bytes = watcher.answers(for: id).first,
               let verdict = try? JSONDecoder().decode(TokenResult.self, from: Data(bytes)), verdict.valid { passed += 1 }
        }
        latencies.sort()
        func pct(_ p: Double) -> Double { latencies.isEmpty ? 0 : latencies[Int(p * Double(latencies.count - 1))] }
        let elapsed = last - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        await watcher.close()
        let tables = KeyTableStore(pool: pool, schema: configuration.schema, secrets: secrets)
        try await tables.load(strict: true)
        let masters = try await tables.masterKeys(for: Array(0..<tables.count))
        return Result(rate: Double(latencies.count) / max(seconds, 1e-9), passed: passed, p50: pct(0.5), p99: pct(0.99),
                      samples: samples, masters: masters)
    }

    /// Single-core rate of `BirthmarkTokenValidator.open` (HKDF derive + AES-GCM open) over
    /// the samples, for at least a second.
    static func inProcessRate(samples: [BirthmarkToken], masters: [Int: Data]) throws -> Double {
        guard !samples.isEmpty else { return 0 }
        var opened = 0
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(1) {
            for token in samples {
                if case .success = BirthmarkTokenValidator.open(token, masterKeys: masters) { opened += 1 }
            }
        }
        guard opened > 0 else { throw AuthorityClientError(.failed, "no sample opened in process") }
        let elapsed = (ContinuousClock.now - start).components
        return Double(opened) / (Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
    }
}

/// When each request was handed to the producer.
final class SendLog: Sendable {
    private let sent = Mutex<[String: ContinuousClock.Instant]>([:])
    func record(_ id: String) { let now = ContinuousClock.now; sent.withLock { $0[id] = now } }
    func snapshot() -> [String: ContinuousClock.Instant] { sent.withLock { $0 } }
}
