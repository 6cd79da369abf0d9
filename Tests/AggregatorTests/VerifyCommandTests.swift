import AggregatorCore
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing
@testable import HallmarkCLICore

/// `hallmark verify`'s verdicts against the running aggregator: authenticated, then consistent
/// with the checkpoint it remembered; not found; and a remembered checkpoint the key did not
/// sign is neither trusted nor kept.
@Suite("hallmark verify", .serialized, .timeLimit(.minutes(4)))
struct VerifyCommandTests {
    @Test func verdictsAndTheRememberedCheckpoint() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth()
        defer { [authority, aggregator].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)")
        let hash = Hex.encode(try SecureRandom.bytes(32))
        #expect(
            try await h.submit(try cam.submission(.packed, hashes: [.init(imageHash: hash, modificationLevel: 0)])).status
                == .accepted)
        let log = LogQuestion(
            producer: h.producer, watcher: h.watcher, requests: h.aggregator.verifyInput,
            results: h.aggregator.verifyOutput, timeout: .seconds(60))
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("verify-\(h.id).json").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let key = h.signingKey.publicKey

        let first = try await VerifyCommand.verify(hash, log: log, publicKey: key, statePath: state)
        #expect(first.code == 0 && first.text.hasPrefix("AUTHENTICATED") && first.text.contains("first checkpoint seen"))
        let remembered = try #require(LastCheckpoint.load(state))
        #expect(remembered.treeSize == 1)

        // The log grows; the next answer is proven an extension of the remembered checkpoint.
        #expect(
            try await h.submit(
                try cam.submission(
                    .reference,
                    hashes: [
                        .init(
                            imageHash: Hex.encode(try SecureRandom.bytes(32)),
                            modificationLevel: 0)
                    ])
            ).status == .accepted)
        let second = try await VerifyCommand.verify(hash, log: log, publicKey: key, statePath: state)
        #expect(second.code == 0 && second.text.contains("consistent with the last checkpoint seen (size 1)"), "\(second.text)")
        #expect(LastCheckpoint.load(state)?.treeSize == 2)

        // With the log's vkey the checkpoint's C2SP note is opened too, and the answer becomes
        // a tlog-proof file that checks offline, with nothing but the vkey.
        let vkey = try h.signingKey.verifierKey(origin: h.aggregator.origin)
        let withNote = try await VerifyCommand.verify(hash, log: log, publicKey: key, vkey: vkey, statePath: state)
        #expect(withNote.code == 0, "\(withNote.text)")
        let proof = try #require(withNote.proof)
        #expect(proof.formatted.hasPrefix("c2sp.org/tlog-proof@v1\nextra "))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("photo-\(h.id).tlog-proof").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        func offline(_ proof: TransparencyProof, vkey: NoteVerifierKey = vkey, hash: String? = hash) throws -> Int32 {
            try Data(proof.formatted.utf8).write(to: URL(fileURLWithPath: file))
            return VerifyCommand.check(proofFile: file, vkey: vkey, imageHash: hash).code
        }
        #expect(try offline(proof) == 0 && (try offline(proof, hash: nil)) == 0)
        #expect(try offline(proof, hash: Hex.encode(try SecureRandom.bytes(32))) == 2)
        let stranger = try CheckpointSigningKey.generate().verifierKey(origin: vkey.name)
        #expect(try offline(proof, vkey: stranger) == 2)
        var moved = proof
        moved.index = 1 - proof.index
        var redated = proof
        redated.extra![35] ^= 1
        var resigned = proof
        resigned.checkpoint.text = resigned.checkpoint.text.replacingOccurrences(of: "\n2\n", with: "\n3\n")
        #expect(try offline(moved) == 2 && (try offline(redated)) == 2 && (try offline(resigned)) == 2)
        let strangerAnswer = try await VerifyCommand.verify(hash, log: log, publicKey: key, vkey: stranger, statePath: state)
        #expect(strangerAnswer.code == 2 && strangerAnswer.text.hasPrefix("INVALID ANSWER"))

        let missing = try await VerifyCommand.verify(
            Hex.encode(try SecureRandom.bytes(32)), log: log, publicKey: key, statePath: state)
        #expect(missing.code == 1 && missing.text.hasPrefix("NOT FOUND"))

        // A larger remembered checkpoint that this key did not sign is ignored and replaced.
        var forged = try #require(LastCheckpoint.load(state))
        forged.treeSize = 1_000
        try LastCheckpoint.save(forged, to: state)
        let afterForgery = try await VerifyCommand.verify(hash, log: log, publicKey: key, statePath: state)
        #expect(afterForgery.code == 0 && afterForgery.text.contains("first checkpoint seen"), "\(afterForgery.text)")
        #expect(LastCheckpoint.load(state)?.treeSize == 2)

        // A checkpoint the log's own key signed for another history (the log showed this asker
        // one history before): the next answer is flagged, at a smaller size and at the same size.
        for size: UInt64 in [1, 2] {
            let other = try h.signingKey.signer(origin: "hallmark.local/birthmark-log").sign(
                LogCheckpoint(treeSize: size, rootHash: try SecureRandom.bytes(32), timestamp: 1_800_000_000))
            try LastCheckpoint.save(other, to: state)
            let split = try await VerifyCommand.verify(hash, log: log, publicKey: key, statePath: state)
            #expect(split.code == 2 && split.text.hasPrefix("INCONSISTENT LOG"), "size \(size): \(split.text)")
            #expect(LastCheckpoint.load(state) == other)
        }

        // An answer checked with another key is refused.
        let other = try await VerifyCommand.verify(hash, log: log, publicKey: try Ed25519.generate().publicKey, statePath: state)
        #expect(other.code == 2 && other.text.hasPrefix("INVALID ANSWER"))

        // The command itself: the key on its command line is its only trust anchor, even where
        // the signing key's file is configured (it once stood in for a stranger's key).
        let env = h.aggregator.placementEnvironment.merging(["HALLMARK_AGGREGATOR_SIGNING_KEY_FILE": h.signingKeyFile]) {
            _, new in new
        }
        for (name, given, status) in [
            ("stranger", Base64.encode(try Ed25519.generate().publicKey), Int32(2)), ("own", Base64.encode(key), 0),
        ] {
            let run = try ServiceProcess(
                "hallmark",
                arguments: ["verify", "--image-hash", hash, "--public-key", given, "--checkpoint-file", state + ".\(name)"],
                name: "\(h.id)-verify-\(name)", environment: env)
            #expect(await run.waitForExit(timeout: .seconds(60)) == status, "\(name): \(run.rawLog)")
            #expect(run.rawLog.contains(status == 0 ? "AUTHENTICATED" : "INVALID ANSWER"), "\(name): \(run.rawLog)")
            try? FileManager.default.removeItem(atPath: state + ".\(name)")
        }
    }
}
