import AggregatorCore
import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Hummingbird
import Testing

/// One camera submission walked through the whole Birthmark path in ONE process: no broker
/// (``InProcessWorld``: a `MemoryBroker`), one real PostgreSQL, every service wired as its
/// executable wires it. The place to start reading, or stepping through, how a photo gets into
/// the log: `swift test --filter SubmissionWalkTests` runs it alone (with
/// `HALLMARK_POSTGRES_URL`), and a breakpoint in any of the types below stops there.
///
/// The stages, in order:
/// 0. Provisioning (before the walk): the authority's `AuthorityProcessor` registers the camera
///    and seals its three key tables (`birthmark.provision.requests` → `.results`).
/// 1. Edge, `POST /api/v1/submit-legacy` (`EdgeHandlers.submit`): the Pi's bundle made strict
///    (`CameraBundle`), its receipt opened (`ReceiptStore`), published on
///    `birthmark.submissions` keyed by capture; the request waits on `ReceiptOutcomes`.
/// 2. Aggregator intake (`SubmissionIntake`): records the submission (`SubmissionLedger`) and
///    asks the authority about its token on `birthmark.token.requests`.
/// 3. Authority validation (`TokenProcessor`): opens the token with its key tables, finds the
///    camera, answers PASS on `birthmark.token.results`.
/// 4. Aggregator joiner (`TokenResultJoiner`): joins PASS to the submission, queued for the log.
/// 5. Log writer (`OrderedWriter` running `TransparencyLog`): appends the leaf, signs a
///    checkpoint (`birthmark.checkpoints`), answers on `birthmark.submission.results`.
/// 6. Edge: the `ReceiptRecorder` stage stores the answer with its receipt (for
///    `GET /api/v1/submission/{receipt_id}`) and names it on PostgreSQL's `NOTIFY` channel;
///    `ReceiptOutcomes` reads it back and hands it to the waiting submit (202 `accepted`).
/// 7. Verification, `GET /api/v1/verify/{hash}` (`Verifications`, `EdgeHandlers.ask`): asked on
///    `birthmark.verify.requests`, answered by the aggregator's `LogVerifier` with the leaf, the
///    latest checkpoint and the inclusion proof on `birthmark.verify.results`.
@Suite("A submission walked in one process", .serialized, .timeLimit(.minutes(1)))
struct SubmissionWalkTests {
    @Test func aCameraSubmissionWalksFromTheEdgeIntoTheLog() async throws {
        try await InProcessWorld.run { world in
            let camera = try await world.provisioned("CAM-WALK-1")
            let hash = EdgeSubmissionTests.hash()
            let bundle = EdgeSubmissionTests.piBundle(
                camera, hash: hash, token: try camera.packedToken(), timestamp: Int(Date().timeIntervalSince1970))
            let vkey = try world.signingKey.verifierKey(origin: world.aggregator.origin)

            try await world.edge { edge in
                // The edge hears answers once its router has its partitions.
                #expect(try await eventually(timeout: .seconds(5)) { try await edge.get("/ready").status == 200 })

                // 1–6: the camera's bundle in, its receipt and the outcome out.
                let submitted = try await edge.post("/api/v1/submit-legacy", bundle)
                #expect(submitted.status == 202)
                #expect(submitted["status"] as? String == "accepted", "\(submitted)")
                let receipt = try #require(submitted["receipt_id"] as? String)
                let leaves = try #require(submitted["leaves"] as? [[String: Any]])
                #expect(leaves.count == 1 && leaves.first?["image_hash"] as? String == hash)
                let index = try #require(leaves.first?["leaf_index"] as? Int)
                let later = try await edge.get("/api/v1/submission/\(receipt)")
                #expect(later.status == 200 && later["status"] as? String == "accepted")

                // 5: the leaf, as the log stores it.
                #expect(try await world.storedLeaves().contains { $0 == (Int64(index), hash) })

                // 7: anyone's verification: the leaf through its inclusion proof to a checkpoint
                // signed by the log's key...
                let verified = try await edge.get("/api/v1/verify/\(hash)")
                #expect(verified.status == 200 && verified["verified"] as? Bool == true, "\(verified)")
                #expect(verified["leaf_index"] as? Int == index)
                let leaf = try BirthmarkLogLeaf(
                    imageHash: try Hex.decode(hash, length: 32),
                    timestamp: UInt64(try #require(verified["timestamp"] as? Int)),
                    modificationLevel: UInt8(try #require(verified["modification_level"] as? Int)), parentHash: nil)
                let proof = TransparencyProof(
                    extra: leaf.bytes, index: UInt64(index),
                    inclusionProof: try #require(verified["inclusion_proof"] as? [String]).map { try Hex.decode($0, length: 32) },
                    checkpoint: try SignedNote.parse(Array(try #require(verified["checkpoint"] as? String).utf8)))
                let head = try proof.verify(leafHash: leaf.leafHash, vkey: vkey)
                #expect(head.treeSize == UInt64(try #require(verified["tree_size"] as? Int)) && head.treeSize > UInt64(index))

                // ...which the log writer published (5).
                let published = await world.broker.firstMessage(in: world.aggregator.checkpoints, timeout: .seconds(5)) {
                    (try? JSONCoding.decode(Message<Checkpoint>.self, from: $0.value))?.treeSize == head.treeSize
                }
                let checkpoint = try JSONCoding.decode(Message<Checkpoint>.self, from: try #require(published).value)
                #expect(checkpoint.rootHash == Hex.encode(head.rootHash) && checkpoint.keyID == world.signingKey.keyID)
            }
        }
    }
}

/// An answer of the edge's router: its status and JSON body.
struct RoutedAnswer: CustomStringConvertible {
    let status: Int
    let json: [String: Any]?
    subscript(_ key: String) -> Any? { json?[key] }
    var description: String { "\(status) \(json.map { "\($0)" } ?? "(no JSON)")" }
}

/// The edge's routes, answered in process (``RouterClient``).
struct EdgeRoutes: Sendable {
    let execute: @Sendable (String, HTTPRequest.Method, HTTPFields, [UInt8]) async throws -> (status: Int, body: [UInt8])

    /// `GET path`.
    func get(_ path: String) async throws -> RoutedAnswer {
        RoutedAnswer(try await execute(path, .get, [:], []))
    }

    /// `POST path` with a JSON body, as the reference Pi sends it.
    func post(_ path: String, _ body: [UInt8]) async throws -> RoutedAnswer {
        RoutedAnswer(try await execute(path, .post, [.contentType: "application/json"], body))
    }
}

extension RoutedAnswer {
    init(_ answer: (status: Int, body: [UInt8])) {
        status = answer.status
        json = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
    }
}
