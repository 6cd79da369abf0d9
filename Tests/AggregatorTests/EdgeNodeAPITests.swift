import AggregatorCore
import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkTestSupport
import Testing

/// The reference verifier web app's node API on the edge, and what a camera says beside its
/// hashes (DESIGN BM-PROVENANCE): `GET /api/v1/blockchain/verify/{hash}` and
/// `GET /api/v1/blockchain/status` answer as the reference node does, and every verify answer
/// returns `gps_hash` and `owner_hash`, named as not covered by the proofs.
@Suite("Edge node API and attribution", .serialized, .timeLimit(.minutes(5)))
struct EdgeNodeAPITests {
    /// The members of the reference node's `HashVerification`, which its verifier app reads.
    static let nodeMembers = [
        "verified", "timestamp", "block_height", "tx_id", "submission_server_id", "modification_level", "parent_image_hash",
    ]

    @Test func theReferenceVerifierAppsNodeAPIAndAttribution() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth()
        let (edge, client) = try await h.startEdge("node", ["HALLMARK_EDGE_ANSWER_WAIT_MS": "30000"])
        defer { [authority, aggregator, edge].forEach { $0.signal(SIGKILL) } }
        let vkey = try h.signingKey.verifierKey(origin: h.aggregator.origin)

        // Before anything is logged, the status says so: no height, no origin yet.
        let empty = try await client.get("/api/v1/blockchain/status")
        #expect(empty.status == 200 && empty["status"] as? String == "operational")
        #expect(empty["block_height"] as? Int == 0 && empty["total_hashes"] as? Int == 0)
        #expect(empty.json?["node_id"] is NSNull && empty.json?["last_block_time"] is NSNull)

        // One bundle with a GPS and an owner hash (sent in upper case), one with neither.
        let cam = try await h.provisioned("CAM-\(h.id)-node")
        let now = Int(Date().timeIntervalSince1970)
        let (attributed, bare) = (EdgeSubmissionTests.hash(), EdgeSubmissionTests.hash())
        let (gps, owner) = (EdgeSubmissionTests.hash(), EdgeSubmissionTests.hash())
        for (hash, gps, owner) in [(attributed, gps.uppercased(), owner.uppercased()), (bare, nil, nil)] {
            let sent = try await client.post(
                "/api/v1/submit-legacy",
                EdgeSubmissionTests.piBundle(
                    cam, hash: hash, token: try cam.packedToken(), timestamp: now, gps: gps, owner: owner))
            #expect(try await client.outcome(sent)["status"] as? String == "accepted")
        }

        // The same image again with other hashes beside it: a duplicate, and the first stay.
        let again = try await client.post(
            "/api/v1/submit-legacy",
            EdgeSubmissionTests.piBundle(
                cam, hash: attributed, token: try cam.packedToken(), timestamp: now, gps: EdgeSubmissionTests.hash(),
                owner: EdgeSubmissionTests.hash()))
        #expect(try await client.outcome(again)["status"] as? String == "duplicate")
        // Answered submissions keep none: only the leaves do.
        let held = try await h.pool.query(
            """
            SELECT count(*) FILTER (WHERE gps_hash IS NOT NULL OR owner_hash IS NOT NULL), count(*)
            FROM \(unescaped: h.aggregator.schema).submissions
            """
        ).decode((Int64, Int64).self)
        #expect(held.first?.0 == 0 && held.first?.1 == 3)
        // The verify answer returns the first submission's two, lowered, and names them as
        // outside the proof, which checks out over the 73-byte leaf alone.
        let answer = try await client.get("/api/v1/verify/\(attributed)")
        #expect(answer["verified"] as? Bool == true)
        #expect(answer["gps_hash"] as? String == gps && answer["owner_hash"] as? String == owner)
        #expect(answer["not_in_proof"] as? [String] == ["gps_hash", "owner_hash"])
        let leaf = try BirthmarkLogLeaf(
            imageHash: try Hex.decode(attributed, length: 32), timestamp: UInt64(now), modificationLevel: 0, parentHash: nil)
        let proof = try await client.get("/api/v1/proof/\(attributed)")
        #expect(try TransparencyProof.parse(proof.body).verify(leafHash: leaf.leafHash, vkey: vkey).treeSize >= 1)
        let plain = try await client.get("/api/v1/verify/\(bare)")
        #expect(plain["verified"] as? Bool == true && plain.json?["gps_hash"] is NSNull && plain.json?["owner_hash"] is NSNull)

        // The node's answer, read as the reference verifier app reads it.
        let node = try await client.get("/api/v1/blockchain/verify/\(attributed)")
        #expect(node.status == 200 && node.header("Content-Type") == "application/json")
        for member in Self.nodeMembers { #expect(node.json?.keys.contains(member) == true, "\(member)") }
        #expect(node["verified"] as? Bool == true && node["timestamp"] as? Int == now)
        #expect(node["block_height"] as? Int == answer["leaf_index"] as? Int)
        #expect(node.json?["tx_id"] is NSNull && node["submission_server_id"] as? String == h.aggregator.origin)
        #expect(node["modification_level"] as? Int == 0 && node.json?["parent_image_hash"] is NSNull)
        #expect(node["owner_hash"] as? String == owner && node["gps_hash"] as? String == gps)
        // Cached like the verify answer, and served so on the event loop.
        #expect(try await client.get("/api/v1/blockchain/verify/\(attributed)").body == node.body)

        // Not in the log: 200 and verified false, every other member null, as the node answers.
        let unknown = try await client.get("/api/v1/blockchain/verify/\(EdgeSubmissionTests.hash())")
        #expect(unknown.status == 200 && unknown["verified"] as? Bool == false)
        for member in Self.nodeMembers.dropFirst() { #expect(unknown.json?[member] is NSNull, "\(member)") }
        let bad = try await client.get("/api/v1/blockchain/verify/xyz")
        #expect(bad.status == 400 && bad["field"] as? String == "image_hash")

        // The status: the log's origin, its size, and a checkpoint signed by the log's key.
        let status = try await client.get("/api/v1/blockchain/status")
        #expect(status.status == 200 && status["node_id"] as? String == h.aggregator.origin)
        let size = try #require(status["block_height"] as? Int)
        #expect(size >= 2 && status["total_hashes"] as? Int == size)
        #expect((status["last_block_time"] as? String).flatMap(Timestamp.init) != nil)
        let note = try SignedNote.parse(Array(try #require(status["checkpoint"] as? String).utf8))
        let head = try CheckpointText.open(note, vkey: vkey)
        #expect(head.treeSize == UInt64(size) && Hex.encode(head.rootHash) == status["root_hash"] as? String)
    }
}
