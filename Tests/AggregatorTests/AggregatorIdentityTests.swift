import AggregatorCore
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// Ids (DESIGN §2): a redelivery is the same id with the same bytes; an id reused for other
/// bytes is refused `id_reused` with a security event; answers carry ids exactly as written;
/// the ids that cross the privacy split are keyed.
@Suite("Aggregator ids", .serialized, .timeLimit(.minutes(5)))
struct AggregatorIdentityTests {
    static func hash() -> String { Hex.encode(try! SecureRandom.bytes(32)) }
    static func one() -> [Submission.ImageHash] { [.init(imageHash: hash(), modificationLevel: 0)] }

    @Test func anIDReusedForOtherBytesIsRefused() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth()
        defer { [authority, aggregator].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)-1")

        let first = try cam.submission(.reference, hashes: Self.one())
        #expect(try await h.submit(first).status == .accepted)
        // Another image under the same id: refused, with an event; its hash is not logged.
        let other = try cam.submission(.mobile, hashes: Self.one(), id: first.id)
        let answers = try await h.submitRaw(other, answers: 2)
        let refusal = try #require(answers.first { $0["status"] as? String == "rejected" })
        #expect(refusal["reason"] as? String == "id_reused" && refusal["request_id"] as? String == first.id.text)
        #expect(
            await h.watcher.wait(timeout: .seconds(30)) { w in
                Self.events(w.messages(on: h.authority.securityTopic)).contains {
                    $0["event"] as? String == "id_reused" && $0["request_id"] as? String == first.id.text
                }
            })
        // The refused message again gets the same refusal (same id); the first one's
        // redelivery its first answer again, byte for byte.
        try await h.send([other])
        #expect(await h.watcher.wait(timeout: .seconds(30)) { _ in h.answerObjects(first.id).count == 3 })
        try await h.send([first])
        #expect(await h.watcher.wait(timeout: .seconds(30)) { _ in h.answerObjects(first.id).count == 4 })
        let all = h.answerObjects(first.id)
        #expect(Set(all.compactMap { $0["id"] as? String }).count == 2)
        #expect(all.filter { $0["status"] as? String == "accepted" }.count == 2)
        #expect(Set(h.resultBytes(first.id).filter { String(decoding: $0, as: UTF8.self).contains("accepted") }).count == 1)

        // Two bodies under one new id in one send: one is validated, the other refused.
        let id = MessageID.random()
        let twins = [
            try cam.submission(.packed, hashes: Self.one(), id: id), try cam.submission(.reference, hashes: Self.one(), id: id),
        ]
        try await h.send(twins)
        #expect(await h.watcher.wait(timeout: .seconds(60)) { _ in h.answerObjects(id).count == 2 })
        let statuses = h.answerObjects(id).map { "\($0["status"] as? String ?? "")/\($0["reason"] as? String ?? "")" }
        #expect(statuses.sorted() == ["accepted/", "rejected/id_reused"])
        let stored = Set(try await h.storedLeaves().map(\.1))
        #expect(stored.isDisjoint(with: other.entries.map(\.imageHash)))
        #expect(twins.filter { stored.contains($0.entries[0].imageHash) }.count == 1)
        for (_, bytes) in h.watcher.outputs(on: [h.aggregator.submissionOutput, h.authority.securityTopic]) {
            let object = try JSONSerialization.jsonObject(with: Data(bytes))
            try SchemaCheck.validate(object, against: try #require((object as? [String: Any])?["schema"] as? String))
        }
    }

    /// The intake's own refusals are recorded with the submission, as the inbox records a
    /// stage's outputs: the same bytes sent again get the first answer byte for byte (not one
    /// produced anew), and the id with other bytes is `id_reused`.
    @Test func intakeRefusalsAreAnsweredAgainByteForByte() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth()
        defer { [authority, aggregator].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)-again")

        let refused = [
            try cam.submission(.cameraSubmission, hashes: Self.one(), authorityID: "ELSEWHERE"),
            try cam.submission(.packed, hashes: [.init(imageHash: Self.hash(), modificationLevel: 1)]),
        ]
        for submission in refused {
            let first = try #require(try await h.submitRaw(submission).first)
            #expect(first["status"] as? String == "rejected")
            try await h.send([submission])
            #expect(await h.watcher.wait(timeout: .seconds(30)) { _ in h.resultBytes(submission.id).count == 2 })
            #expect(Set(h.resultBytes(submission.id)).count == 1, "\(first["reason"] ?? "")")
        }
        // The refused id with other bytes: not a redelivery.
        let other = try cam.submission(.reference, hashes: Self.one(), id: refused[0].id)
        let answers = try await h.submitRaw(other, answers: 3)
        #expect(answers.last?["reason"] as? String == "id_reused")
        #expect(Set(try await h.storedLeaves().map(\.1)).isDisjoint(with: other.entries.map(\.imageHash)))
    }

    /// Answers carry the input's id exactly as written (Swift's `uuidString` is upper case):
    /// accepted, duplicate, rejected at intake and by the authority, sent again, verified.
    @Test func idsAreAnsweredAsWritten() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth()
        defer { [authority, aggregator].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)-1")
        func upper() -> MessageID { MessageID(UUID().uuidString)! }

        let first = try cam.submission(.reference, hashes: Self.one(), id: upper())
        var tampered = try cam.submission(.reference, hashes: Self.one(), id: upper())
        tampered.cameraToken!.authTag = String(tampered.cameraToken!.authTag.reversed())
        let submissions = [
            (first, "accepted", ""),
            (try cam.submission(.mobile, hashes: first.entries, id: upper()), "duplicate", ""),
            (tampered, "rejected", "authentication_failed"),
            (
                try cam.submission(.cameraSubmission, hashes: Self.one(), id: upper(), authorityID: "ELSEWHERE"), "rejected",
                "unknown_authority"
            ),
            (
                try cam.submission(.packed, hashes: [.init(imageHash: Self.hash(), modificationLevel: 1)], id: upper()),
                "rejected",
                "invalid_provenance"
            ),
        ]
        for (submission, status, reason) in submissions {
            let answer = try #require(try await h.submitRaw(submission).first, "no answer as written to \(status) \(reason)")
            #expect(
                answer["request_id"] as? String == submission.id.text
                    && answer["correlation_id"] as? String == submission.id.text)
            #expect(answer["status"] as? String == status && (answer["reason"] as? String ?? "") == reason)
        }
        // Sent again: the recorded answer, still as written.
        try await h.send([first])
        #expect(await h.watcher.wait(timeout: .seconds(30)) { $0.answers(for: first.id).count == 2 })
        #expect(Set(h.watcher.answers(for: first.id)).count == 1)
        // A verification asked with an upper-case id.
        let request = Message(LogVerifyRequest(imageHash: first.entries[0].imageHash), id: upper())
        let verified = try await h.ask(request)
        #expect(verified.status == .found && verified.requestID == request.id && verified.correlationID == request.id.text)
    }

    /// The token request's id, key and correlation id are keyed: the unkeyed derivation of the
    /// submission id matches none, and they are the same under the key for the same submission.
    @Test func tokenRequestIDsAreKeyed() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (authority, aggregator) = try await h.startBoth()
        defer { [authority, aggregator].forEach { $0.signal(SIGKILL) } }
        let cam = try await h.provisioned("CAM-\(h.id)-1")
        let submissions = try ProvisioningFile.SubmissionBody.allCases.map { try cam.submission($0, hashes: Self.one()) }
        try await h.send(submissions)
        let answers = await h.answers(submissions.map(\.id), timeout: .seconds(60))
        #expect(answers.values.filter { $0.status == .accepted }.count == submissions.count)

        // The requests travel in batch carriers (DESIGN §2); each item is a request of its own.
        let values = h.watcher.messages(on: h.authority.tokenInput)
        let requests = values.flatMap(CarriedUnits.of)
        let sent = Set(requests.flatMap { [$0["id"]?.string, $0["correlation_id"]?.string].compactMap { $0 } })
        #expect(requests.count == submissions.count)
        var unkeyed = Set<String>(), keyed = Set<String>()
        for s in submissions {
            for id in [s.id.text, s.id.text.lowercased(), s.id.text.uppercased()] {
                for name in ["token-request", "token-correlation", "token-key"] {
                    unkeyed.insert(MessageID.derived(from: id, name).text)
                }
            }
            let uuid = s.id.uuid
            keyed.formUnion([
                h.idKey.derive(from: uuid, "token-request").text, h.idKey.derive(from: uuid, "token-correlation").text,
            ])
        }
        #expect(sent.isDisjoint(with: unkeyed))
        // Deterministic under the key: what the aggregator sent is what the key gives.
        #expect(sent == keyed)
        // A carrier is keyed by its own id, derived from its items' keyed ids; a single request
        // by its keyed correlation id. Neither is an unkeyed derivation of a submission's id.
        let carriers = Set(
            values.compactMap { value in
                (try? JSONReader.parse(value))?.object.flatMap { $0["items"] == nil ? nil : $0["id"]?.string }
            })
        #expect(carriers.isDisjoint(with: unkeyed) && carriers.isDisjoint(with: keyed))
        let keys = try await TopicKeys.read(h.authority.tokenInput, kafka: h.kafka, count: values.count)
        #expect(keys.count == values.count && keys.isDisjoint(with: unkeyed) && keys.isSubset(of: keyed.union(carriers)))
    }

    static func events(_ messages: [[UInt8]]) -> [[String: Any]] {
        messages.compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }
}
