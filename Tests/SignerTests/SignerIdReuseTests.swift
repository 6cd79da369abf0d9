import Foundation
import HallmarkCLICore
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkRuntime
import HallmarkTestSupport
import Testing

/// DESIGN §2's rule on ids against the running signer: the signer keeps one inbox for its sign,
/// verify and privacy stages, and a message whose id a message on another of them already used
/// was taken for a redelivery and dropped in silence. It is refused `id_reused` now, on its
/// result topic and with a security event; a true redelivery still gets its first answer again.
@Suite("Signer: ids used on another topic", .serialized, .timeLimit(.minutes(5)))
struct SignerIdReuseTests {
    @Test func aSignRequestsIdOnAVerifyOrPrivacyRequestIsRefused() async throws {
        let h = try await SignerHarness(secrets: ["1": "s3cret-one"], signing: "1")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("signer-reuse-\(h.id)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try OperatorKeyFile.generate(keyID: "reuse-op")
        try Data((try key.publicEntry + "\n").utf8).write(to: folder.appendingPathComponent("operators"))
        try Data(Base64.encode(try SecureRandom.bytes(32)).utf8).write(to: folder.appendingPathComponent("index.key"))
        let topics = PrivacyTopics(requests: "test.signer.\(h.id).privacy.in", results: "test.signer.\(h.id).privacy.out")
        try await KafkaAdmin(configuration: h.kafka, logger: h.logger)
            .createTopics([topics.requests, topics.results, "test.signer.\(h.id).audit"], partitions: 2)
        let signer = try await h.startSigner(
            "reuse",
            [
                "HALLMARK_PRIVACY_REQUESTS_TOPIC": topics.requests, "HALLMARK_PRIVACY_RESULTS_TOPIC": topics.results,
                "HALLMARK_AUDIT_TOPIC": "test.signer.\(h.id).audit",
                "HALLMARK_SIGNER_OPERATOR_KEYS_FILE": folder.appendingPathComponent("operators").path,
                "HALLMARK_SIGNER_INDEX_KEY_FILE": folder.appendingPathComponent("index.key").path,
            ])
        defer { signer.signal(SIGKILL) }

        // Two sign requests, each answered.
        let body = Data(#"{"job":"1"}"#.utf8)
        let ids = [MessageID.random(), MessageID.random()]
        for id in ids {
            try await h.send(
                h.signInput, key: "partner-1",
                message: Message(SignRequest(headers: ["SmileID-Partner-ID": "partner-1"], bodyB64: Base64.encode(body)), id: id))
        }
        #expect(try await h.results(h.signOutput, for: ids).count == 2)

        // A verify request with the first one's id, a privacy request with the second's.
        let verify = Fixtures.verify(try Fixtures.signedHeaders(secret: "s3cret-one", body: body), body: body, id: ids[0])
        try await h.send(h.verifyInput, key: nil, message: verify)
        let privacy = try key.sign(
            Message(PrivacyRequest(action: .export, subjectType: .partnerID, subject: "partner-1"), id: ids[1]))
        try await h.send(topics.requests, key: nil, message: privacy)

        let verdict = try await h.results(h.verifyOutput, for: [ids[0]])[ids[0]]?.first
        #expect(
            verdict?["verdict"] as? String == "rejected" && verdict?["reason"] as? String == "id_reused",
            "\(String(describing: verdict))")
        #expect(verdict?["id"] as? String != MessageID.derived(from: ids[0], "result").text)
        let answer = try await h.results(topics.results, for: [ids[1]])[ids[1]]?.first
        #expect(
            answer?["status"] as? String == "rejected" && answer?["reason"] as? String == "id_reused",
            "\(String(describing: answer))")

        let rejected = try await h.read(h.rejected) { records in
            Set(records.compactMap { $0["original_id"] as? String }).isSuperset(of: ids.map(\.text))
        }
        #expect(
            rejected.filter { ids.map(\.text).contains($0["original_id"] as? String ?? "") }
                .allSatisfy { $0["reason"] as? String == "id_reused" })
        let events = try await h.read(h.security) { events in
            Set(events.filter { $0["event"] as? String == "id_reused" }.compactMap { $0["request_id"] as? String })
                .isSuperset(of: ids.map(\.text))
        }
        #expect(
            Set(events.filter { $0["event"] as? String == "id_reused" }.compactMap { $0["request_id"] as? String })
                .isSuperset(of: ids.map(\.text)), "no id_reused event")

        // Every message seen is valid under its schema.
        for (topic, name) in [
            (h.verifyOutput, VerifyResult.schemaName), (topics.results, PrivacyResult.schemaName),
            (h.security, SecurityEvent.schemaName), (h.rejected, RejectedRecord.schemaName),
        ] {
            let schema = try JSONSchemaValidator.load(name)
            for object in try await h.read(topic, timeout: .seconds(5), until: { _ in false }) {
                try schema.validate(bytes: Array(try JSONSerialization.data(withJSONObject: object)))
            }
        }
        await h.close()
    }
}
