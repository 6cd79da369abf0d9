import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// Edits as claims (DESIGN BM-PROVENANCE): the reference editing plugin's record, as it POSTs
/// it, is recorded as a claim; provenance and the edit history mark each link `attested` (a
/// leaf of the log) or `claimed`, and a claim never makes an image verified.
@Suite("Edge edits and provenance", .serialized, .timeLimit(.minutes(5)))
struct EdgeProvenanceTests {
    typealias Value = ReferenceBody.PythonValue

    /// The reference GIMP plugin's record, member for member (its `datetime.utcnow().isoformat()`
    /// times, no offset; dimensions as `[width, height]`).
    static func record(
        original: String, final: String, level: Int = 2, authenticated: Bool = true, software: String = "GIMP-2.10"
    ) -> [UInt8] {
        ReferenceBody.python([
            ("original_image_hash", .string(original)), ("final_image_hash", .string(final)),
            ("modification_level", .int(level)), ("authenticated", .bool(authenticated)),
            ("original_dimensions", .ints([4056, 3040])), ("final_dimensions", .ints([2028, 1520])),
            ("software_id", .string(software)), ("plugin_version", .string("1.0.0")),
            ("initialized_at", .string("2026-11-29T10:00:00.123456")), ("exported_at", .string("2026-11-29T10:05:00.654321")),
            ("authority_type", .string("software")),
        ])
    }

    @Test func editsAreClaimsAndProvenanceMarksEachLink() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth()
        let (edge, client) = try await h.startEdge("prov", ["HALLMARK_EDGE_ANSWER_WAIT_MS": "30000"])
        defer { [authority, aggregator, edge].forEach { $0.signal(SIGKILL) } }

        // A capture and its processed image, logged through the edge (attested).
        let cam = try await h.provisioned("CAM-\(h.id)-prov")
        let now = Int(Date().timeIntervalSince1970)
        let (raw, processed) = (EdgeSubmissionTests.hash(), EdgeSubmissionTests.hash())
        let token = try cam.packedToken()
        for (hash, parent) in [(raw, nil), (processed, raw)] {
            let sent = try await client.post(
                "/api/v1/submit-legacy",
                EdgeSubmissionTests.piBundle(cam, hash: hash, token: token, timestamp: now, parent: parent))
            #expect(try await client.outcome(sent)["status"] as? String == "accepted")
        }

        // A chain of three edits on top, the first sent in upper case and saying `authenticated`.
        let (first, second, third) = (EdgeSubmissionTests.hash(), EdgeSubmissionTests.hash(), EdgeSubmissionTests.hash())
        var chainIDs: [String] = []
        for (original, final) in [(processed.uppercased(), first.uppercased()), (first, second), (second, third)] {
            let answer = try await client.post("/api/v1/modifications", Self.record(original: original, final: final))
            #expect(answer.status == 202 && answer["status"] as? String == "recorded", "\(answer.json ?? [:])")
            #expect(answer["final_image_hash"] as? String == final.lowercased() && answer["modification_level"] as? Int == 2)
            #expect(answer["verification_url"] as? String == "/api/v1/provenance/\(final.lowercased())")
            chainIDs.append(try #require(answer["chain_id"] as? String))
        }
        // The same record again is recorded under its first id; another edit of the same final is refused.
        let again = try await client.post("/api/v1/modifications", Self.record(original: first, final: second))
        #expect(again.status == 202 && again["chain_id"] as? String == chainIDs[1])
        let conflict = try await client.post("/api/v1/modifications", Self.record(original: raw, final: second))
        #expect(conflict.status == 409 && conflict["error"] as? String == "already_claimed")
        let itself = try await client.post("/api/v1/modifications", Self.record(original: first, final: first))
        #expect(itself.status == 400 && itself["field"] as? String == "$.final_image_hash")

        // The whole chain, original first: two attested links, then three claimed ones; the last
        // is a claim, so the image is not verified, whatever the editor said.
        let chain = try await client.get("/api/v1/provenance/\(third)")
        #expect(chain.status == 200 && chain["verified"] as? Bool == false && chain["chain_length"] as? Int == 5)
        let links = try #require(chain["chain"] as? [[String: Any]])
        #expect(links.map { $0["hash"] as? String } == [raw, processed, first, second, third])
        #expect(links.map { $0["status"] as? String } == ["attested", "attested", "claimed", "claimed", "claimed"])
        #expect(
            links.map { $0["type"] as? String } == ["capture", "modification", "modification", "modification", "modification"])
        #expect(links[0]["authority_type"] as? String == "manufacturer" && links[0]["leaf_index"] is Int)
        #expect(links[2]["authority_type"] as? String == "software" && links[2]["software_version"] as? String == "1.0.0")
        #expect(links[2]["claim_id"] as? String == chainIDs[0] && links[2]["claimed_authenticated"] as? Bool == true)
        #expect(links[2]["timestamp"] as? String == "2026-11-29T10:05:00.654Z")
        #expect(links[3]["parent_image_hash"] as? String == first)
        // A logged image's own provenance is verified.
        let logged = try await client.get("/api/v1/provenance/\(processed.uppercased())")
        #expect(logged["verified"] as? Bool == true && logged["chain_length"] as? Int == 2)
        // The verify answer of a claimed image is unchanged: not in the log.
        #expect(try await client.get("/api/v1/verify/\(first)")["verified"] as? Bool == false)

        // The edit history both ways: what the image was made from, and what was made from it.
        let history = try await client.get("/api/v1/modifications/\(first)")
        let asFinal = try #require(history["as_final"] as? [[String: Any]])
        let asOriginal = try #require(history["as_original"] as? [[String: Any]])
        #expect(asFinal.count == 1 && asFinal.first?["original_hash"] as? String == processed)
        #expect(asFinal.first?["status"] as? String == "claimed" && asFinal.first?["software_id"] as? String == "GIMP-2.10")
        #expect(asOriginal.count == 1 && asOriginal.first?["final_hash"] as? String == second)
        let attested = try await client.get("/api/v1/modifications/\(processed)")
        #expect((attested["as_final"] as? [[String: Any]])?.first?["status"] as? String == "attested")

        // A claim on an image the log has never seen: recorded, a chain of one claimed link.
        let (stranger, edit) = (EdgeSubmissionTests.hash(), EdgeSubmissionTests.hash())
        let claimed = try await client.post(
            "/api/v1/modifications", Self.record(original: stranger, final: edit, level: 1, authenticated: true))
        #expect(claimed.status == 202)
        let lone = try await client.get("/api/v1/provenance/\(edit)")
        #expect(lone["verified"] as? Bool == false && lone["chain_length"] as? Int == 1)
        #expect((lone["chain"] as? [[String: Any]])?.first?["parent_image_hash"] as? String == stranger)

        // Nothing known: 404 for provenance, empty lists for the history; a bad hash is a 400.
        let unknown = EdgeSubmissionTests.hash()
        #expect(try await client.get("/api/v1/provenance/\(unknown)").status == 404)
        let none = try await client.get("/api/v1/modifications/\(unknown)")
        #expect(
            none.status == 200 && (none["as_original"] as? [Any])?.isEmpty == true
                && (none["as_final"] as? [Any])?.isEmpty == true)
        #expect(try await client.get("/api/v1/provenance/xyz").status == 400)

        // Bad records are 400s naming the member, before anything is published.
        let bad: [(String, [UInt8], String?)] = [
            ("not JSON", Array("{".utf8), nil),
            ("a short hash", Self.record(original: "abc", final: edit), "$.original_image_hash"),
            ("level 3", Self.record(original: stranger, final: EdgeSubmissionTests.hash(), level: 3), "$.modification_level"),
            (
                "a bad time",
                ReferenceBody.python([
                    ("original_image_hash", .string(stranger)), ("final_image_hash", .string(EdgeSubmissionTests.hash())),
                    ("modification_level", .int(1)), ("authenticated", .bool(false)), ("software_id", .string("x")),
                    ("plugin_version", .string("1")), ("initialized_at", .string("yesterday")),
                    ("exported_at", .string("2026-11-29T10:05:00")),
                ]), "$.initialized_at"
            ),
        ]
        for (what, body, field) in bad {
            let answer = try await client.post("/api/v1/modifications", body)
            #expect(answer.status == 400, "\(what)")
            if let field { #expect(answer["field"] as? String == field, "\(what)") }
        }

        // Over Kafka, what the edge wrote is all that arrived: each claim's answer is typed.
        let answers = h.watcher.messages(on: h.aggregator.claimOutput).compactMap {
            try? JSONCoding.decode(Message<ModificationResult>.self, from: $0).body
        }
        #expect(answers.filter { $0.status == .recorded }.count == 5)
        #expect(Set(answers.compactMap(\.reason)) == [.alreadyClaimed, .invalidProvenance])
    }
}
