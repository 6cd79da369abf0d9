import AggregatorCore
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkTestSupport
import Logging
import ServiceLifecycle
import Testing
import WitnessCore

@testable import HallmarkCLICore

/// The running aggregator and three C2SP witnesses on loopback (`hallmark witness`'s server),
/// one of them down: each checkpoint is sent with its consistency proof, the two live ones
/// cosign it, and a verification answer carries their cosignatures and says `witnessed` by the
/// policy's 2-of-3 quorum: first from size 0, then as the log grows, then after the aggregator
/// forgot the witnesses' sizes (their 409 tells it).
@Suite("Aggregator witnesses", .serialized, .timeLimit(.minutes(4)))
struct AggregatorWitnessTests {
    /// A witness served on a free loopback port, in a service group that shuts it down
    /// gracefully.
    struct Running {
        let witness: Witness
        let port: Int
        let group: ServiceGroup
        let state: String

        func stop() {
            Task { await group.triggerGracefulShutdown() }
            try? FileManager.default.removeItem(atPath: state)
            try? FileManager.default.removeItem(atPath: state + ".lock")
        }
    }

    static func serve(_ name: String, logs: [NoteVerifierKey]) async throws -> Running {
        var logger = Logger(label: "witness-\(name)")
        logger.logLevel = .warning
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("witness-\(UUID()).json").path
        let witness = try Witness(
            name: "witness.test/\(name)", seed: try SecureRandom.bytes(32), logs: logs, statePath: state, logger: logger)
        let (group, port) = try await WitnessServer.start(witness, logger: logger)
        return Running(witness: witness, port: port, group: group, state: state)
    }

    @Test func checkpointsAreCosignedAndWitnessedByTheQuorum() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let vkey = try h.signingKey.verifierKey(origin: h.aggregator.origin)
        let w1 = try await Self.serve("w1", logs: [vkey])
        let w2 = try await Self.serve("w2", logs: [vkey])
        let down = try NoteSigner(name: "witness.test/down", seed: try SecureRandom.bytes(32), algorithm: .cosignatureV1)
        defer { [w1, w2].forEach { $0.stop() } }
        let policy = """
            # two of three witnesses; w3 is down
            log \(vkey)
            witness w1 \(w1.witness.verifierKey) http://127.0.0.1:\(w1.port)
            witness w2 \(w2.witness.verifierKey) http://127.0.0.1:\(w2.port)/
            witness w3 \(down.verifierKey) http://127.0.0.1:9
            group two-of-three 2 w1 w2 w3
            quorum two-of-three

            """
        let policyFile = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(h.id)").path
        try policy.write(toFile: policyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: policyFile) }
        let (authority, aggregator) = try await h.startBoth([
            "HALLMARK_AGGREGATOR_WITNESS_POLICY_FILE": policyFile, "HALLMARK_AGGREGATOR_WITNESS_INTERVAL_MS": "100",
            "HALLMARK_AGGREGATOR_WITNESS_TIMEOUT_MS": "2000",
        ])
        defer { [authority, aggregator].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)")
        let log = LogQuestion(
            producer: h.producer, watcher: h.watcher, requests: h.aggregator.verifyInput,
            results: h.aggregator.verifyOutput, timeout: .seconds(60))
        let parsed = try TransparencyPolicy.parse(policy)

        for round in 1...3 {
            if round == 3 {
                // The aggregator forgets what the witnesses hold (a restored database): it asks
                // from 0, each witness answers 409 with its size, and it asks again from there.
                _ = try await h.pool.execute("DELETE FROM \(unescaped: h.aggregator.schema).witness_sizes")
            }
            let hashes = (0..<round * 3).map { _ in Hex.encode(try! SecureRandom.bytes(32)) }
            for hash in hashes {
                #expect(
                    try await h.submit(try cam.submission(.reference, hashes: [.init(imageHash: hash, modificationLevel: 0)]))
                        .status == .accepted)
            }
            // Asked again until the answer's checkpoint is witnessed (the witnesses are asked
            // off the append path, every 100 ms).
            var answer: LogVerifyResult?
            let witnessed = try await eventually(timeout: .seconds(60), interval: .milliseconds(200)) {
                answer = try await log.inclusion(hashes.last!)
                return answer?.witnessed == true
            }
            #expect(witnessed, "round \(round): \(String(describing: answer?.witnessed))")
            let checkpoint = try #require(answer?.checkpoint)
            let note = try SignedNote.parse(Array(try #require(checkpoint.note).utf8))
            #expect(parsed.cosigners(of: note) == ["w1", "w2"])
            #expect(try checkpoint.openNote(vkey: vkey)?.treeSize == checkpoint.treeSize)
            if case .failure(let failure) = answer!.check(publicKey: h.signingKey.publicKey, imageHash: hashes.last!) {
                Issue.record("the answer does not check: \(failure)")
            }
            // Each witness remembers the size it cosigned.
            for w in [w1, w2] {
                #expect(try WitnessState.load(w.state).logs[vkey.name]?.size == checkpoint.treeSize)
            }
        }
    }
}
