import AggregatorCore
import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// Anyone checks a photo over HTTP (DESIGN BM-EDGE): the edge's verification answers, its C2SP
/// proof files and the log's tiles, each checked against the log's vkey alone.
@Suite("Edge verification", .serialized, .timeLimit(.minutes(5)))
struct EdgeVerificationTests {
    @Test func anyoneChecksAPhotoOverHTTP() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let tiles = FileManager.default.temporaryDirectory.appendingPathComponent("edge-tiles-\(h.id)").path
        defer { try? FileManager.default.removeItem(atPath: tiles) }
        let (authority, aggregator) = try await h.startBoth([
            "HALLMARK_AGGREGATOR_TILES_DIR": tiles, "HALLMARK_AGGREGATOR_TILES_INTERVAL_MS": "100",
        ])
        let (edge, client) = try await h.startEdge("v", ["HALLMARK_EDGE_TILES_DIR": tiles])
        defer { [authority, aggregator, edge].forEach { $0.signal(SIGKILL) } }
        let vkey = try h.signingKey.verifierKey(origin: h.aggregator.origin)
        let cam = try await h.provisioned("CAM-\(h.id)-verify")
        let now = Int(Date().timeIntervalSince1970)
        let hash = EdgeSubmissionTests.hash()
        let submitted = try await client.post(
            "/api/v1/submit-legacy",
            EdgeSubmissionTests.piBundle(cam, hash: hash, token: try cam.packedToken(), timestamp: now))
        #expect(try await client.outcome(submitted)["status"] as? String == "accepted")

        // The answer, asked in upper case, checks out with the vkey: the record's leaf through
        // the inclusion proof to the root of the signed note.
        let answer = try await client.get("/api/v1/verify/\(hash.uppercased())")
        #expect(answer.status == 200 && answer["verified"] as? Bool == true && answer["image_hash"] as? String == hash)
        let index = try #require(answer["leaf_index"] as? Int)
        let note = try #require(answer["checkpoint"] as? String)
        let path = try #require(answer["inclusion_proof"] as? [String]).map { try Hex.decode($0, length: 32) }
        let leaf = try BirthmarkLogLeaf(
            imageHash: try Hex.decode(hash, length: 32), timestamp: UInt64(try #require(answer["timestamp"] as? Int)),
            modificationLevel: UInt8(try #require(answer["modification_level"] as? Int)), parentHash: nil)
        let fromJSON = TransparencyProof(
            extra: leaf.bytes, index: UInt64(index), inclusionProof: path, checkpoint: try SignedNote.parse(Array(note.utf8)))
        let head = try fromJSON.verify(leafHash: leaf.leafHash, vkey: vkey)
        #expect(head.treeSize == UInt64(try #require(answer["tree_size"] as? Int)))
        #expect(answer["aggregator"] as? String == h.aggregator.origin)
        #expect(answer.header("Cache-Control")?.hasPrefix("public, max-age=") == true)

        // The proof file: a C2SP tlog-proof, immutable, that checks out offline.
        let proof = try await client.get("/api/v1/proof/\(hash)")
        #expect(proof.status == 200 && proof.header("Cache-Control") == "public, max-age=31536000, immutable")
        let parsed = try TransparencyProof.parse(proof.body)
        #expect(try parsed.verify(leafHash: leaf.leafHash, vkey: vkey).treeSize == head.treeSize)
        #expect(parsed.index == UInt64(index))

        // Unknown: verified false against the latest checkpoint, and no proof; a bad hash is a 400.
        let unknown = try await client.get("/api/v1/verify/\(EdgeSubmissionTests.hash())")
        #expect(unknown.status == 200 && unknown["verified"] as? Bool == false && unknown["tree_size"] is Int)
        #expect(try await client.get("/api/v1/proof/\(EdgeSubmissionTests.hash())").status == 404)
        let bad = try await client.get("/api/v1/verify/xyz")
        #expect(bad.status == 400 && bad["error"] as? String == "invalid_field" && bad["field"] as? String == "image_hash")

        // Cached until the next checkpoint: the same tree, then a larger one once the log grew.
        #expect(try await client.get("/api/v1/verify/\(hash)").header("ETag") == answer.header("ETag"))
        let more = try await client.post(
            "/api/v1/submit-legacy",
            EdgeSubmissionTests.piBundle(cam, hash: EdgeSubmissionTests.hash(), token: try cam.packedToken(), timestamp: now))
        #expect(try await client.outcome(more)["status"] as? String == "accepted")
        let size = try #require(answer["tree_size"] as? Int)
        #expect(
            try await eventually(timeout: .seconds(30)) {
                (try await client.get("/api/v1/verify/\(hash)")["tree_size"] as? Int ?? 0) > size
            })

        // The log's checkpoint and tiles, as files the aggregator wrote, with their cache headers.
        #expect(
            try await eventually(timeout: .seconds(30)) {
                let checkpoint = try await client.get("/log/checkpoint")
                return checkpoint.status == 200 && String(decoding: checkpoint.body, as: UTF8.self).hasPrefix(h.aggregator.origin)
            })
        let checkpoint = try await client.get("/log/checkpoint")
        #expect(checkpoint.header("Cache-Control") == "public, max-age=1, no-transform")
        let tileSize = String(decoding: checkpoint.body, as: UTF8.self).split(separator: "\n")[1]
        let tile = try await client.get("/log/tile/0/000.p/\(tileSize)")
        #expect(tile.status == 200 && tile.body.count == 32 * (Int(tileSize) ?? 0))
        let etag = try #require(tile.header("ETag"))
        #expect(try await client.get("/log/tile/0/000.p/\(tileSize)", headers: ["If-None-Match": etag]).status == 304)
        #expect(try await client.get("/log/../secrets").status == 404)
    }

    /// Cached reads are answered on the event loop (``CachedReadHandler``): with the router's
    /// bytes and headers, never before an answer the router still owes on the connection
    /// (pipelining), and a `Connection: close` is honoured.
    @Test func cachedReadsAreTheRoutersAnswersInOrder() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth()
        let (edge, client) = try await h.startEdge("cached")
        defer { [authority, aggregator, edge].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)-cached")
        let now = Int(Date().timeIntervalSince1970)
        let hash = EdgeSubmissionTests.hash()
        let submitted = try await client.post(
            "/api/v1/submit-legacy", EdgeSubmissionTests.piBundle(cam, hash: hash, token: try cam.packedToken(), timestamp: now))
        #expect(try await client.outcome(submitted)["status"] as? String == "accepted")
        // The first read asks the log through the router; the answer is cached from then on.
        let first = try await client.get("/api/v1/verify/\(hash)")
        let proof = try await client.get("/api/v1/proof/\(hash)")
        #expect(first.status == 200 && first["verified"] as? Bool == true && proof.status == 200)

        let get = Array("GET /api/v1/verify/\(hash.uppercased()) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        let getProof = Array("GET /api/v1/proof/\(hash) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        let cached = try client.pipelined(get + getProof + get, answers: 3)
        try #require(cached.answers.count == 3)
        #expect(!cached.closed)
        for (answer, expected) in zip(cached.answers, [first, proof, first]) {
            #expect(answer.status == "HTTP/1.1 200 OK" && answer.body == Array(expected.body))
            for name in ["ETag", "Cache-Control", "Content-Type", "Server"] {
                #expect(answer.headers[name.lowercased()] == expected.header(name), "\(name)")
            }
            #expect(answer.headers["date"]?.hasSuffix(" GMT") == true)
        }

        // A submit waiting for its outcome, then a cached read, in one write: in that order.
        let bundle = EdgeSubmissionTests.piBundle(
            cam, hash: EdgeSubmissionTests.hash(), token: try cam.packedToken(), timestamp: now)
        let post =
            Array(
                "POST /api/v1/submit-legacy HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(bundle.count)\r\n\r\n"
                    .utf8) + bundle
        let ordered = try client.pipelined(post + get, answers: 2)
        #expect(ordered.answers.map(\.status) == ["HTTP/1.1 202 Accepted", "HTTP/1.1 200 OK"])
        let receipt = ordered.answers.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any] }
        #expect(receipt?["receipt_id"] is String)
        let verified = ordered.answers.last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any] }
        #expect(verified?["image_hash"] as? String == hash && verified?["verified"] as? Bool == true)

        // Connection: close is answered, then the connection closed.
        let closing = try client.pipelined(
            Array("GET /api/v1/verify/\(hash) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8), answers: 1,
            closeWait: 5_000)
        #expect(closing.answers.first?.status == "HTTP/1.1 200 OK" && closing.closed)
    }
}
