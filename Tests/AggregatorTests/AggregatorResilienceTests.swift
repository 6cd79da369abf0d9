import AggregatorCore
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// The aggregator under failure: its log leader SIGKILLed mid-batch again and again, the
/// authority away for 30 s, the authority never answering.
@Suite("Aggregator resilience", .serialized, .timeLimit(.minutes(10)))
struct AggregatorResilienceTests {
    static func bundles(_ cam: ProvisioningFile, _ count: Int, authorityID: String) throws -> [Message<Submission>] {
        let bodies = ProvisioningFile.SubmissionBody.allCases
        return try (0..<count).map { i in
            let body = bodies[i % bodies.count]
            // A raw capture and, where the body holds two, the image processed from it (DESIGN §2's provenance).
            var hashes: [Submission.ImageHash] = []
            for level in 0..<(body == .flatBundle ? 1 : 2) {
                hashes.append(
                    .init(
                        imageHash: Hex.encode(try SecureRandom.bytes(32)), modificationLevel: level,
                        parentImageHash: hashes.last?.imageHash))
            }
            return try cam.submission(body, hashes: hashes, authorityID: authorityID)
        }
    }

    /// The log as stored must be exactly the accepted hashes, once each, at 0..<n, and every
    /// checkpoint ever published must be signed and be the root of its first `tree_size`
    /// leaves (so all of them are consistent with each other).
    static func expectSoundLog(_ h: AggregatorHarness, accepted hashes: [String]) async throws {
        let stored = try await h.storedLeaves()
        #expect(stored.map(\.0) == Array(0..<Int64(stored.count)), "the log has a gap")
        #expect(stored.count == Set(stored.map(\.1)).count, "a hash is logged twice")
        #expect(Set(stored.map(\.1)) == Set(hashes))
        let blocks = try await h.pool.query(
            """
            SELECT hashes FROM \(unescaped: h.aggregator.schema).node_blocks WHERE level = 0 ORDER BY block
            """
        ).decode(Data.self)
        let leafHashes = blocks.flatMap { block in
            stride(from: 0, to: block.count, by: 32).map { Data(block.dropFirst($0).prefix(32)) }
        }
        #expect(leafHashes.count == stored.count)
        let checkpoints = h.checkpoints()
        #expect(!checkpoints.isEmpty)
        var wrong: [UInt64] = []
        for (size, checkpoint) in checkpoints {
            let root = MerkleTree.root(leafHashes: Array(leafHashes.prefix(Int(size))))
            if !checkpoint.signed.verify(publicKey: h.signingKey.publicKey) || checkpoint.rootHash != Hex.encode(root)
                || Int(size) > leafHashes.count
            {
                wrong.append(size)
            }
        }
        #expect(wrong.isEmpty, "checkpoints that are not the log's: \(wrong.sorted().prefix(10))")
    }

    @Test func leaderKilledMidBatchAgainAndAgain() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let authority = try await h.startAuthority("a")
        defer { authority.signal(SIGKILL) }
        // Small batches and a long linger: a kill lands inside a batch more often than not.
        let settings = ["HALLMARK_AGGREGATOR_BATCH": "50", "HALLMARK_AGGREGATOR_LINGER_MS": "30"]
        var replicas = [try await h.startAggregator("r0", settings), try await h.startAggregator("r1", settings)]
        defer { replicas.forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)")
        let all = try Self.bundles(cam, 3000, authorityID: h.aggregator.authorityID)
        let feeder = Task {
            for chunk in stride(from: 0, to: all.count, by: 100) {
                try await h.send(Array(all[chunk..<min(all.count, chunk + 100)]))
                try await Task.sleep(for: .milliseconds(60))
            }
        }
        for round in 0..<4 {
            // Kill whichever replica leads once it has written something this round.
            let before = h.checkpoints().count
            #expect(await h.watcher.wait(timeout: .seconds(60)) { _ in h.checkpoints().count > before + 2 })
            guard let leader = replicas.lastIndex(where: { $0.process.isRunning && $0.logCount("writer leading") > 0 }) else {
                Issue.record("no replica leads")
                break
            }
            replicas[leader].signal(SIGKILL)
            _ = await replicas[leader].waitForExit(timeout: .seconds(10))
            replicas[leader] = try await h.startAggregator("r\(round + 2)", settings)
        }
        try await feeder.value
        let answers = await h.answers(all.map(\.id), timeout: .seconds(240))
        #expect(answers.count == all.count)
        let notAccepted = answers.values.filter { $0.status != .accepted }
        #expect(notAccepted.isEmpty, "\(notAccepted.prefix(5).map { "\($0.status) \($0.reason?.rawValue ?? "")" })")
        try await Self.expectSoundLog(h, accepted: all.flatMap { $0.entries.map(\.imageHash) })
        #expect(replicas.filter { $0.process.isRunning }.count == 2)
    }

    @Test func authorityAwayThirtySecondsUnderLoad() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        var authority = try await h.startAuthority("a0")
        defer { authority.signal(SIGKILL) }
        let aggregator = try await h.startAggregator("g", ["HALLMARK_AGGREGATOR_RESEND_MS": "2000"])
        defer { aggregator.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)")
        let all = try Self.bundles(cam, 1500, authorityID: h.aggregator.authorityID)
        try await h.send(Array(all[0..<500]))
        authority.signal(SIGTERM)
        #expect(await authority.waitForExit(timeout: .seconds(30)) == 0)
        let away = ContinuousClock.now
        for chunk in stride(from: 500, to: all.count, by: 100) {
            try await h.send(Array(all[chunk..<min(all.count, chunk + 100)]))
            try await Task.sleep(for: .seconds(2))
        }
        // Nothing given up while the authority is away: the submissions wait.
        let early = h.watcher.messages(on: h.aggregator.submissionOutput).count
        try await Task.sleep(until: away + .seconds(30))
        #expect(h.watcher.messages(on: h.aggregator.submissionOutput).count == early)
        authority = try await h.startAuthority("a1")
        let answers = await h.answers(all.map(\.id), timeout: .seconds(180))
        #expect(answers.count == all.count)
        let notAccepted = answers.values.filter { $0.status != .accepted }
        #expect(
            notAccepted.isEmpty,
            "\(notAccepted.count): \(notAccepted.prefix(5).map { "\($0.status) \($0.reason?.rawValue ?? "")" })")
        try await Self.expectSoundLog(h, accepted: all.flatMap { $0.entries.map(\.imageHash) })
        #expect(aggregator.logCount("processing failed; retrying") == 0)
    }

    /// With no authority at all, a submission is answered `validation_timeout` once the
    /// configured time has passed, and the same id sent again gets that answer again.
    @Test func givesUpWithATypedReason() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let aggregator = try await h.startAggregator(
            "g",
            [
                "HALLMARK_AGGREGATOR_RESEND_MS": "500",
                "HALLMARK_AGGREGATOR_GIVE_UP_MS": "2000",
            ])
        defer { aggregator.signal(SIGKILL) }
        let zero = String(repeating: "00", count: 32)
        let camera = ProvisioningFile(
            answer: ProvisioningAnswer(
                deviceSerial: "NOBODY", tableAssignments: [1, 2, 3],
                masterKeys: ["1": zero, "2": zero, "3": zero]),
            nucHash: Data(count: 32))
        let bundles = try Self.bundles(camera, 5, authorityID: h.aggregator.authorityID)
        try await h.send(bundles)
        let answers = await h.answers(bundles.map(\.id), timeout: .seconds(60))
        #expect(answers.count == 5 && answers.values.allSatisfy { $0.reason == .validationTimeout })
        #expect(h.watcher.messages(on: h.authority.tokenInput).count > 5, "requests were not re-sent")
        try await h.send([bundles[0]])
        #expect(await h.watcher.wait(timeout: .seconds(30)) { $0.answers(for: bundles[0].id).count >= 2 })
        #expect(Set(h.watcher.answers(for: bundles[0].id)).count == 1)
        #expect(try await h.storedLeaves().isEmpty)
    }
}
