import Foundation
import HallmarkCrypto
import Logging
import Testing

@testable import WitnessCore

/// The witness by C2SP tlog-witness, in process: it cosigns consistent growth only, answers
/// 400, 403, 404, 409 (with its size) and 422 as the spec says, keeps its state across
/// restarts, refuses a split view with evidence, and never rolls back under concurrent
/// requests.
@Suite("Witness", .timeLimit(.minutes(2)))
struct WitnessTests {
    /// A log of random leaves with its key, making signed checkpoints and proofs.
    struct TestLog {
        let origin: String
        let seed = try! SecureRandom.bytes(32)
        var leaves: [Data] = []

        init(origin: String = "log.example/test", size: Int = 0) {
            self.origin = origin
            grow(to: size)
        }

        var vkey: NoteVerifierKey { try! NoteSigner(name: origin, seed: seed, algorithm: .ed25519).verifierKey }

        mutating func grow(to size: Int) {
            while leaves.count < size { leaves.append(MerkleTree.leafHash(try! SecureRandom.bytes(73))) }
        }

        func checkpoint(size: Int? = nil, signedBy other: Data? = nil) -> SignedNote {
            let n = size ?? leaves.count
            let text = try! CheckpointText(
                origin: origin, treeSize: UInt64(n), rootHash: MerkleTree.root(leafHashes: Array(leaves.prefix(n)))
            ).text
            let signer = try! NoteSigner(name: origin, seed: other ?? seed, algorithm: .ed25519)
            return SignedNote(text: text, signatures: [try! signer.sign(text)])
        }

        func request(from old: Int, to new: Int? = nil) -> [UInt8] {
            let n = new ?? leaves.count
            let proof = old == 0 ? [] : try! MerkleTree.consistencyProof(oldSize: old, leafHashes: Array(leaves.prefix(n)))
            return Array(AddCheckpointRequest(oldSize: UInt64(old), proof: proof, checkpoint: checkpoint(size: n)).formatted.utf8)
        }
    }

    static func witness(_ logs: [TestLog], state: String? = nil) throws -> (Witness, String) {
        let path = state ?? FileManager.default.temporaryDirectory.appendingPathComponent("witness-\(UUID()).json").path
        var logger = Logger(label: "witness-tests")
        logger.logLevel = .critical
        let witness = try Witness(
            name: "witness.example/w1", seed: Data(repeating: 5, count: 32), logs: logs.map(\.vkey), statePath: path,
            logger: logger, clock: { 1_800_000_000 })
        return (witness, path)
    }

    @Test func cosignsConsistentGrowthOnly() async throws {
        var log = TestLog(size: 10)
        let (witness, path) = try Self.witness([log])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = await witness.add(log.request(from: 0))
        #expect(first.status == 200)
        // The cosignature verifies under the witness's vkey and carries its time.
        var cosigned = log.checkpoint()
        cosigned.signatures += try SignedNote.parse(Array((log.checkpoint().text + "\n" + first.body).utf8)).signatures
        #expect(try cosigned.verified(by: [witness.verifierKey]).first?.time == 1_800_000_000)
        #expect(try cosigned.verified(by: [log.vkey]).count == 1)

        log.grow(to: 300)
        #expect(await witness.add(log.request(from: 10)).status == 200)
        // The same checkpoint again: cosigned again.
        #expect(await witness.add(log.request(from: 300)).status == 200)
        // A stale old size: 409 with the size last cosigned.
        let stale = await witness.add(log.request(from: 10))
        #expect(stale.status == 409 && stale.body == "300\n" && stale.contentType == "text/x.tlog.size")
        // The monitoring endpoint serves the latest cosigned checkpoint with both signatures.
        let originHash = Hex.encode(SHA256Hash.digest(Data(log.origin.utf8)))
        let served = try SignedNote.parse(Array(try #require(await witness.checkpoint(originHash: originHash)).utf8))
        #expect(served.text == log.checkpoint().text && served.signatures.count == 2)
        #expect(await witness.checkpoint(originHash: String(repeating: "0", count: 64)) == nil)
    }

    @Test func refusalsFollowTheSpec() async throws {
        var log = TestLog(size: 8)
        let stranger = TestLog(origin: "other.example/log", size: 3)
        let (witness, path) = try Self.witness([log])
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(await witness.add(Array("nonsense".utf8)).status == 400)
        #expect(await witness.add(stranger.request(from: 0)).status == 404)
        let forged = AddCheckpointRequest(
            oldSize: 0, proof: [], checkpoint: log.checkpoint(signedBy: Data(repeating: 1, count: 32)))
        #expect(await witness.add(Array(forged.formatted.utf8)).status == 403)
        // Size 0: 422.
        let zero = AddCheckpointRequest(
            oldSize: 0, proof: [],
            checkpoint: {
                let text = try! CheckpointText(origin: log.origin, treeSize: 0, rootHash: MerkleTree.emptyRoot).text
                let signer = try! NoteSigner(name: log.origin, seed: log.seed, algorithm: .ed25519)
                return SignedNote(text: text, signatures: [try! signer.sign(text)])
            }())
        #expect(await witness.add(Array(zero.formatted.utf8)).status == 422)
        // Old size 0 with a proof: 422.
        let withProof = AddCheckpointRequest(oldSize: 0, proof: [Data(count: 32)], checkpoint: log.checkpoint())
        #expect(await witness.add(Array(withProof.formatted.utf8)).status == 422)
        #expect(await witness.add(log.request(from: 0)).status == 200)
        // Old size above the checkpoint's: 400.
        let above = AddCheckpointRequest(oldSize: 20, proof: [], checkpoint: log.checkpoint())
        #expect(await witness.add(Array(above.formatted.utf8)).status == 400)
        // A proof that does not verify: 422.
        log.grow(to: 20)
        var bad = try AddCheckpointRequest.parse(log.request(from: 8))
        bad.proof[0][0] ^= 1
        #expect(await witness.add(Array(bad.formatted.utf8)).status == 422)
        #expect(await witness.add(log.request(from: 8)).status == 200)
    }

    @Test func aSplitViewIsRefusedAndKeptAsEvidence() async throws {
        var log = TestLog(size: 50)
        let (witness, path) = try Self.witness([log])
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(await witness.add(log.request(from: 0)).status == 200)
        // The log forks: the same 50 leaves for some, another history for others.
        var fork = log
        fork.leaves[49] = MerkleTree.leafHash(Data("another history".utf8))
        let sameSize = await witness.add(fork.request(from: 50))
        #expect(sameSize.status == 422 && sameSize.refusal == .splitView)
        fork.grow(to: 60)
        let grown = await witness.add(fork.request(from: 50))
        #expect(grown.status == 422 && grown.refusal == .inconsistent)
        let evidence = try WitnessStateFile(path: path).load().evidence
        #expect(evidence.count == 2 && evidence.allSatisfy { $0.origin == log.origin && $0.cosignedSize == 50 })
        // The true history still grows.
        log.grow(to: 70)
        #expect(await witness.add(log.request(from: 50)).status == 200)
    }

    @Test func stateSurvivesARestartAndConcurrencyNeverRollsBack() async throws {
        var log = TestLog(size: 5)
        let (witness, path) = try Self.witness([log])
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(await witness.add(log.request(from: 0)).status == 200)
        // Another process on the same state file (a restart, or a second replica).
        let (again, _) = try Self.witness([log], state: path)
        #expect(await again.add(log.request(from: 0)).body == "5\n")
        // Many requests at once, each from size 5 to its own size: exactly one wins; the
        // others get 409, and the state ends at the winner's size, never a smaller one.
        log.grow(to: 40)
        let sizes = Array(6...40)
        let answers = await withTaskGroup(of: (Int, WitnessAnswer).self) { group in
            for (i, size) in sizes.enumerated() {
                let request = log.request(from: 5, to: size)
                let target = i.isMultiple(of: 2) ? witness : again
                group.addTask { (size, await target.add(request)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let won = answers.filter { $0.1.status == 200 }
        #expect(won.count == 1 && answers.filter { $0.1.status == 409 }.count == sizes.count - 1)
        #expect(try WitnessStateFile(path: path).load().logs[log.origin]?.size == UInt64(won[0].0))
    }
}
