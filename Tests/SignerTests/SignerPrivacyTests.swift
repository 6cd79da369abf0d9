import Foundation
import HallmarkCLICore
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import HallmarkTestSupport
import SignerCore
import Testing

/// Privacy requests about a partner against the running signer, through `hallmark privacy`:
/// the export lists the partner's replay records (and nobody else's) without any secret; the
/// erasure keeps the records inside their window and says until when; both are in the audit
/// trail, which verifies. Without operator keys the signer does not answer at all.
@Suite("Signer privacy requests", .serialized, .timeLimit(.minutes(6)))
struct SignerPrivacyTests {
    @Test func exportThenEraseAPartner() async throws {
        let h = try await SignerHarness(secrets: ["1": "s3cret-one"], signing: "1")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("signer-privacy-\(h.id)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try OperatorKeyFile.generate(keyID: "privacy-op")
        try key.write(to: folder.appendingPathComponent("operator.key").path)
        try Data((try key.publicEntry + "\n").utf8).write(to: folder.appendingPathComponent("operators"))
        try Data(Base64.encode(try SecureRandom.bytes(32)).utf8).write(to: folder.appendingPathComponent("index.key"))
        let topics = PrivacyTopics(requests: "test.signer.\(h.id).privacy.in", results: "test.signer.\(h.id).privacy.out")
        let audit = "test.signer.\(h.id).audit"
        try await KafkaAdmin(configuration: h.kafka, logger: h.logger).createTopics(
            [topics.requests, topics.results, audit],
            partitions: 2)
        let env = [
            "HALLMARK_PRIVACY_REQUESTS_TOPIC": topics.requests, "HALLMARK_PRIVACY_RESULTS_TOPIC": topics.results,
            "HALLMARK_AUDIT_TOPIC": audit,
        ]
        let signer = try await h.startSigner(
            "privacy",
            env.merging([
                "HALLMARK_SIGNER_OPERATOR_KEYS_FILE": folder.appendingPathComponent("operators").path,
                "HALLMARK_SIGNER_INDEX_KEY_FILE": folder.appendingPathComponent("index.key").path,
            ]) { $1 })
        defer { signer.signal(SIGKILL) }

        // Two accepted requests of partner-1 and one of partner-2 leave replay records.
        let body = Data(#"{"job":"1"}"#.utf8)
        let requests = try ["partner-1", "partner-1", "partner-2"].map { partner in
            Fixtures.verify(try Fixtures.signedHeaders(secret: "s3cret-one", partner: partner, body: body), body: body)
        }
        for r in requests { try await h.send(h.verifyInput, key: nil, message: r) }
        let verdicts = try await h.results(h.verifyOutput, for: requests.map(\.id))
        #expect(verdicts.values.allSatisfy { $0.first?["verdict"] as? String == "accepted" })

        func cli(_ arguments: [String]) async throws -> (code: Int32?, result: Message<PrivacyResult>?, text: String) {
            let run = try ServiceProcess(
                "hallmark",
                arguments: ["privacy"] + arguments + [
                    "--partner", "partner-1", "--services", "signer", "--timeout", "60",
                    "--operator-key", folder.appendingPathComponent("operator.key").path,
                ], name: "\(h.id)-\(arguments[0])", environment: env)
            let code = await run.waitForExit(timeout: .seconds(90))
            let text = run.rawLog
            guard let start = text.firstIndex(of: "{"),
                let document = try? JSONSerialization.jsonObject(with: Data(text[start...].utf8)) as? [String: Any],
                let first = (document["results"] as? [Any])?.first,
                let bytes = try? JSONSerialization.data(withJSONObject: first)
            else { return (code, nil, text) }
            return (code, try? JSONCoding.decode(Message<PrivacyResult>.self, from: [UInt8](bytes)), text)
        }
        let export = try await cli(["export"])
        #expect(export.code == 0, "\(export.text)")
        let records = export.result?.records ?? []
        #expect(records.filter { $0.source == "\(h.schema).replay" }.count == 2, "\(records)")
        #expect(!export.text.contains("s3cret-one") && !export.text.contains("partner-2"))

        let erase = try await cli(["erase"])
        #expect(erase.code == 0, "\(erase.text)")
        let retained = erase.result?.retained?.first { $0.why == .replayWindow }
        #expect(erase.result?.status == .completed && retained?.count == 2)
        let until = try #require(retained?.until.flatMap(Timestamp.parse))
        #expect(until > Date() && until < Date() + 400, "kept until \(until)")
        #expect(erase.result?.retained?.contains { $0.why == .auditTrail && $0.count == 2 } == true)
        let left = try await h.pool.query(
            """
            SELECT count(*)::bigint FROM \(unescaped: h.schema).replay WHERE partner_id = 'partner-1'
            """)[0].column(0, as: Int64.self)
        #expect(left == 2, "replay records inside their window must stay")
        let check = try await AuditChainCheck.run(schema: h.schema, pool: h.pool)
        #expect(check.problem == nil && check.records == 4, "the secret version in force at start, then export and erase")
        await h.close()
    }

    /// Without operator keys the signer starts, says it does not answer privacy requests,
    /// and signs as before.
    @Test func withoutOperatorKeysPrivacyIsOff() async throws {
        let h = try await SignerHarness(secrets: ["1": "s3cret-one"], signing: "1")
        let signer = try await h.startSigner("no-privacy")
        defer { signer.signal(SIGKILL) }
        #expect(signer.rawLog.contains("privacy requests are not answered"))
        await h.close()
    }
}
