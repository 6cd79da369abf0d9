import AggregatorCore
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

/// The running authority and aggregator of `hallmark bench aggregator` and its phases.
struct AggregatorBench {
    let world: World
    let io: BenchExchange
    let authority: BenchProcess

    /// Provisions `count` cameras through the running authority.
    func provision(_ count: Int, certificate: Bool = false) async throws -> [ProvisioningFile] {
        let watcher = try AnswerWatcher(
            kafka: io.kafka, topics: [world.authority.provisionOutput], fromStart: false, logger: io.logger)
        let reader = Task { await watcher.run() }
        defer { reader.cancel() }
        try await watcher.waitUntilAssigned()
        let provisioner = CameraProvisioner(producer: io.producer, watcher: watcher, topic: world.authority.provisionInput)
        var out: [ProvisioningFile] = []
        for i in 0..<count {
            guard
                case .provisioned(let file) = try await provisioner.provision(
                    serial: "BENCH-\(world.run)-\(certificate ? "c" : "")\(i)", certificate: certificate,
                    timeout: .seconds(60))
            else { throw BenchError("camera \(i) was not provisioned") }
            out.append(file)
        }
        await watcher.close()
        return out
    }

    /// One-hash bundles, round-robin over the cameras and the token formats.
    func bundles(_ count: Int, from fleet: [ProvisioningFile]) throws -> [Message<Submission>] {
        let bodies: [ProvisioningFile.SubmissionBody] = [.reference, .packed, .mobile, .flatBundle, .cameraSubmission]
        return try (0..<count).map { i in
            try fleet[i % fleet.count].submission(
                bodies[i % bodies.count],
                hashes: [.init(imageHash: Hex.encode(try SecureRandom.bytes(32)), modificationLevel: 0)],
                authorityID: world.aggregator.authorityID)
        }
    }

    /// One-hash certificate bundles (DESIGN BM-CERT) from certificate-mode cameras, round-robin
    /// over them and the two signed forms (the Raspberry Pi's and the iOS app's).
    func certificateBundles(_ count: Int, from fleet: [ProvisioningFile]) throws -> [Message<Submission>] {
        let forms = ProvisioningFile.CertificateForm.allCases
        return try (0..<count).map { i in
            Message(
                try fleet[i % fleet.count].certificateBundle(
                    imageHash: Hex.encode(try SecureRandom.bytes(32)), form: forms[(i / fleet.count) % forms.count]))
        }
    }

    /// Submits and reads every answer back.
    func submit(
        _ bundles: [Message<Submission>], pace: Double?
    ) async throws
        -> (rate: Double, accepted: Int, latencies: [String: Double], cost: BenchExchange.Cost, authorityCPU: Double)
    {
        let outputs = try bundles.map {
            KafkaOutgoingMessage(
                topic: world.aggregator.submissionInput, key: Array($0.id.text.utf8), value: try JSONCoding.encode($0))
        }
        let sentAt = SentTimes()
        let authorityBefore = authority.cpuSeconds
        let (answers, cost) = try await io.exchange(reading: world.aggregator.submissionOutput, ids: Set(bundles.map(\.id.text)))
        {
            [io] in
            try await io.send(outputs, ids: bundles.map(\.id.text), pace: pace, sentAt: sentAt)
        }
        var latencies: [String: Double] = [:]
        for a in answers { latencies[a.requestID] = sentAt.get(a.requestID).map { (a.at - $0).seconds * 1000 } }
        let accepted = answers.filter { $0.json["status"]?.string == "accepted" }.count
        return (Double(answers.count) / cost.seconds, accepted, latencies, cost, authority.cpuSeconds - authorityBefore)
    }

    /// Inclusion queries all at once; every `found` answer is checked offline.
    func verify(_ hashes: [String]) async throws -> (rate: Double, verified: Int, notFound: Int, cost: BenchExchange.Cost) {
        let requests = hashes.map { Message(LogVerifyRequest(imageHash: $0)) }
        let outputs = try requests.map {
            KafkaOutgoingMessage(topic: world.aggregator.verifyInput, key: nil, value: try JSONCoding.encode($0))
        }
        let (answers, cost) = try await io.exchange(reading: world.aggregator.verifyOutput, ids: Set(requests.map(\.id.text))) {
            [io] in
            try await io.sendAll(outputs)
        }
        var verified = 0, notFound = 0
        for a in answers {
            guard let result = try? JSONCoding.decode(LogVerifyResult.self, from: a.value) else { continue }
            if result.status == .notFound { notFound += 1 }
            if result.status == .found, case .success = result.check(publicKey: world.key.publicKey) { verified += 1 }
        }
        return (Double(answers.count) / cost.seconds, verified, notFound, cost)
    }

    /// Leaves per second into a frontier alone, taking the root after every 1,000.
    static func frontierAppend(_ count: Int) -> Double {
        let hashes = (0..<count).map { MerkleTree.leafHash(withUnsafeBytes(of: $0) { Data($0) }) }
        var frontier = MerkleFrontier()
        var roots = 0
        let start = ContinuousClock.now
        for (i, hash) in hashes.enumerated() {
            _ = frontier.append(leafHash: hash)
            if i % 1000 == 999 { roots &+= Int(frontier.root[0]) }
        }
        let seconds = (ContinuousClock.now - start).seconds
        precondition(frontier.size == count && roots >= 0)
        return Double(count) / seconds
    }

    /// Leaves per second through the writer's append into a throw-away schema, 1,000 per
    /// batch, each batch one transaction ending in a signed checkpoint. The schema stays for
    /// the tile and witness benches; the caller drops it (`World.dropSchemas`).
    func writerAppend(_ count: Int) async throws -> (rate: Double, schema: String, log: TransparencyLog, size: Int64) {
        let schema = "bench_log_\(world.run)"
        let log = try await world.log(schema: schema, logger: io.logger)
        let batches = try (0..<(count / 1000)).map { _ in try Self.randomItems(1000) }
        var size: Int64 = 0
        let start = ContinuousClock.now
        for batch in batches {
            size += Int64(try await world.pool.transaction { try await log.append(batch, at: size, on: $0) }.appended)
        }
        return (Double(size) / (ContinuousClock.now - start).seconds, schema, log, size)
    }

    /// `count` log items of one random image hash each, as the writer takes them.
    static func randomItems(_ count: Int) throws -> [TransparencyLog.Item] {
        try (0..<count).map { _ in
            TransparencyLog.Item(
                id: UUID(), entries: [.init(imageHash: Hex.encode(try SecureRandom.bytes(32)), modificationLevel: 0)],
                capturedAt: 1_700_000_000, correlationID: "bench", replyTopic: "unused", replyKey: nil)
        }
    }
}
