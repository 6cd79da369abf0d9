import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// The verifier page (`GET /verify`, DESIGN BM-PROVENANCE) in headless Chromium: the browser
/// hashes nothing it was not given, asks the edge, and checks the answer itself with the keys of
/// the edge's trust policy (a log and two witnesses, quorum two of three). A logged photo shows
/// verified with its witnesses; an unknown one not found; a tampered proof and a checkpoint
/// signed by another key, served by a test double between the browser and the edge, refused.
@Suite("Edge verifier page", .serialized, .timeLimit(.minutes(5)))
struct EdgeVerifierPageTests {
    @Test func aJournalistChecksAPhotoInTheBrowser() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let vkey = try h.signingKey.verifierKey(origin: h.aggregator.origin)
        let w1 = try await AggregatorWitnessTests.serve("w1", logs: [vkey])
        let w2 = try await AggregatorWitnessTests.serve("w2", logs: [vkey])
        defer { [w1, w2].forEach { $0.stop() } }
        let down = try NoteSigner(name: "witness.test/down", seed: try SecureRandom.bytes(32), algorithm: .cosignatureV1)
        let policy = """
            log \(vkey)
            witness w1 \(w1.witness.verifierKey) http://127.0.0.1:\(w1.port)
            witness w2 \(w2.witness.verifierKey) http://127.0.0.1:\(w2.port)
            witness w3 \(down.verifierKey) http://127.0.0.1:9
            group two-of-three 2 w1 w2 w3
            quorum two-of-three

            """
        let policyFile = FileManager.default.temporaryDirectory.appendingPathComponent("trust-\(h.id)").path
        try policy.write(toFile: policyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: policyFile) }
        let (authority, aggregator) = try await h.startBoth([
            "HALLMARK_AGGREGATOR_WITNESS_POLICY_FILE": policyFile, "HALLMARK_AGGREGATOR_WITNESS_INTERVAL_MS": "100",
            "HALLMARK_AGGREGATOR_WITNESS_TIMEOUT_MS": "2000",
        ])
        let (edge, client) = try await h.startEdge(
            "page", ["HALLMARK_EDGE_ANSWER_WAIT_MS": "30000", "HALLMARK_EDGE_TRUST_POLICY_FILE": policyFile])
        defer { [authority, aggregator, edge].forEach { $0.signal(SIGKILL) } }

        // The page and its trust: the log's key and the witnesses', as the policy names them.
        let page = try await client.get("/verify")
        #expect(page.status == 200 && page.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
        let trust = try await client.get("/verify/trust.json")
        #expect(trust["logs"] as? [String] == [vkey.description] && trust["quorum"] as? String == "two-of-three")

        // A photo, logged through the edge, then read until its checkpoint is witnessed.
        let cam = try await h.provisioned("CAM-\(h.id)-page")
        let photo = Array("a photo's bytes \(UUID())".utf8)
        let hash = Hex.encode(SHA256Hash.digest(photo))
        let sent = try await client.post(
            "/api/v1/submit-legacy",
            EdgeSubmissionTests.piBundle(
                cam, hash: hash, token: try cam.packedToken(), timestamp: Int(Date().timeIntervalSince1970)))
        #expect(try await client.outcome(sent)["status"] as? String == "accepted")
        #expect(
            try await eventually(timeout: .seconds(60), interval: .milliseconds(200)) {
                try await client.get("/api/v1/verify/\(hash)")["witnessed"] as? Bool == true
            })

        // The venv's Python: the test double signs with PyPI cryptography.
        func browse(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            let run = try await VerifierScript.run(
                "verify_page_check.py", arguments + ["--url", "http://127.0.0.1:\(client.port)"])
            return (run.status, run.output)
        }
        let verified = try await browse(["--hash", hash, "--expect", "verified", "--expect-witnesses", "2"])
        #expect(verified.status == 0, "\(verified.output)")
        let unknown = try await browse(["--hash", Hex.encode(try SecureRandom.bytes(32)), "--expect", "not-found"])
        #expect(unknown.status == 0, "\(unknown.output)")
        let badProof = try await browse(["--hash", hash, "--expect", "refused", "--tamper", "proof"])
        #expect(badProof.status == 0, "\(badProof.output)")
        #expect(badProof.output.contains("inclusion proof") || badProof.output.contains("leaf"), "\(badProof.output)")
        let otherKey = try await browse(["--hash", hash, "--expect", "refused", "--tamper", "key"])
        #expect(otherKey.status == 0, "\(otherKey.output)")
        #expect(otherKey.output.contains("not signed by the log's key"), "\(otherKey.output)")
        // A tampered answer that the page took for verified would fail the line above; so would
        // a page that refuses everything fail the first.
    }
}
