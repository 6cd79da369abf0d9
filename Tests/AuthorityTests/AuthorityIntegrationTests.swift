import HallmarkClient
import AuthorityCore
import Foundation
import HallmarkCLICore
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkTestSupport
import Testing

/// `hallmark-authority` as its own process against the real broker and PostgreSQL.
/// Serialized: these tests kill processes and load the shared machine.
@Suite("Authority, end to end", .serialized, .timeLimit(.minutes(5)))
struct AuthorityIntegrationTests {
    /// Provisioning, PASS in both formats, and every FAIL reason with its own cause.
    @Test func provisioningThenEveryVerdict() async throws {
        let h = try await AuthorityHarness()
        let service = try await h.start("a")
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-1")
        #expect(Set(cam.tableAssignments).count == 3)
        #expect(cam.tableAssignments.allSatisfy { (0..<24).contains($0) })

        // PASS: reference format, and mobile format with each of the three pairs.
        #expect(try await h.validate(cam.referenceRequest().token).valid)
        for used in 0..<3 {
            let r = try await h.validate(cam.mobileToken(used: used))
            #expect(r.valid, "mobile pair \(used): \(String(describing: r.reason))")
            let p = try await h.validate(cam.packedToken(used: used))
            #expect(p.valid, "packed pair \(used): \(String(describing: p.reason))")
        }
        var packed = try cam.packedToken()
        var sealed = try Base64.decode(packed.encryptedNucToken)
        sealed[0] ^= 1
        packed.encryptedNucToken = Base64.encode(sealed)
        #expect(try await h.validate(packed).reason == .token(.authenticationFailed))

        // Tampered ciphertext, tampered tag, wrong key index.
        var t = try cam.referenceRequest().token
        t.ciphertext = Self.flip(t.ciphertext)
        #expect(try await h.validate(t).reason == .token(.authenticationFailed))
        t = try cam.referenceRequest().token
        t.authTag = Self.flip(t.authTag)
        #expect(try await h.validate(t).reason == .token(.authenticationFailed))
        t = try cam.referenceRequest(keyIndex: 10).token
        t.keyIndex = 11
        #expect(try await h.validate(t).reason == .token(.authenticationFailed))

        // A real table that is not the device's, an unknown table, an unknown device.
        let store = KeyTableStore(pool: h.pool, schema: h.configuration.schema, secrets: try h.secrets())
        try await store.load(strict: true)
        let foreign = try #require((0..<24).first { !cam.tableAssignments.contains($0) })
        let foreignMaster = try #require(try await store.masterKeys(for: [foreign])[foreign])
        t = try cam.referenceRequest(table: foreign, master: foreignMaster).token
        #expect(try await h.validate(t).reason == .token(.tableNotAssigned))
        t = try cam.referenceRequest(table: 5000, master: foreignMaster).token
        #expect(try await h.validate(t).reason == .token(.unknownTable))
        var stranger = cam
        stranger.nucHash = Hex.encode(try SecureRandom.bytes(32))
        #expect(try await h.validate(stranger.referenceRequest().token).reason == .token(.unknownDevice))
        #expect(try await h.validate(stranger.mobileToken()).reason == .token(.unknownDevice))
        #expect(try await h.validate(stranger.packedToken()).reason == .token(.unknownDevice))

        // Replay: the same token under a new message id; a security event says so.
        let once = try cam.referenceRequest().token
        #expect(try await h.validate(once).valid)
        #expect(try await h.validate(once).reason == .replayedToken)
        #expect(await h.waitForSecurity(.replayedToken))

        // Redelivery: the same message (same id) twice gets the first answer only, never a replay.
        let id = MessageID.random()
        let bytes = try ProvisioningFile.requestBytes(cam.referenceRequest().token, id: id)
        #expect(try await h.validate(bytes, id: id).valid)
        try await h.producer.send(topic: h.configuration.tokenInput, key: Array("camera".utf8), value: bytes)
        // Sent after it on the same key, so answered after it: once this answer is in, any
        // second answer to the redelivered message would be too.
        #expect(try await h.validate(cam.mobileToken()).valid)
        let answers = h.watcher.answers(for: id).compactMap {
            try? JSONDecoder().decode(Message<TokenResult>.self, from: Data($0))
        }
        #expect(!answers.isEmpty && answers.allSatisfy { $0.valid }, "redelivery answers: \(answers)")
        #expect(Set(answers.map(\.id)).count == 1, "a redelivered request got a different answer id")

        // Blacklisted, then lifted.
        try await h.sendAdmin(
            Message(AdminCommand(command: .blacklist, deviceSerial: cam.deviceSerial, reason: "stolen")))
        #expect(await h.waitForSecurity(.deviceBlacklisted))
        // Within the device cache's TTL the old state may still answer; then the new one must.
        #expect(
            try await eventually(timeout: .seconds(10)) {
                try await h.validate(cam.referenceRequest().token).reason == .token(.blacklisted)
            })
        #expect(try await h.validate(cam.mobileToken()).reason == .token(.blacklisted))
        try await h.sendAdmin(
            Message(AdminCommand(command: .unblacklist, deviceSerial: cam.deviceSerial, reason: "found")))
        #expect(await h.waitForSecurity(.deviceUnblacklisted))
        #expect(try await eventually(timeout: .seconds(10)) { try await h.validate(cam.referenceRequest().token).valid })

        // A serial provisioned twice is refused; a NUC hash cannot be claimed twice.
        guard case .rejected(let reason) = try await h.provision(cam.deviceSerial) else {
            Issue.record("a second provisioning of one serial was accepted")
            return
        }
        #expect(reason == "already_provisioned")
        guard
            case .rejected(let nucReason) = try await h.provision(
                "CAM-\(h.id)-clone",
                nucHash: try Hex.decode(cam.nucHash))
        else {
            Issue.record("a NUC hash was provisioned twice")
            return
        }
        #expect(nucReason == "nuc_in_use")

        // Security events for the FAILs, and nothing secret in any of them.
        #expect(await h.waitForSecurity(.tokenRejected, count: 6))
        try Self.validateSchemas(h)
        let everything =
            (h.watcher.messages(on: h.configuration.tokenOutput)
            + h.watcher.messages(on: h.configuration.securityTopic)).map { String(decoding: $0, as: UTF8.self) }
        #expect(!everything.contains { $0.contains(cam.nucHash) || $0.contains(cam.masterKeys.values.first!) })
        #expect(!service.rawLog.contains(cam.nucHash))
        await h.close()
    }

    /// Malformed requests each get FAIL `malformed` (not a crash, not the rejected topic).
    @Test func malformedRequestsAnswerMalformed() async throws {
        let h = try await AuthorityHarness()
        let service = try await h.start("m")
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-m")
        let good = try JSONSerialization.jsonObject(with: Data(JSONCoding.encode(cam.referenceRequest().token))) as! [String: Any]
        func token(_ key: String, _ value: Any?) -> [String: Any] {
            var t = good
            t[key] = value
            return ["camera_token": t]
        }
        let cases: [(String, [String: Any])] = [
            ("bad hex", token("ciphertext", String(repeating: "g", count: 64))),
            ("short nonce", token("nonce", "0001")),
            ("short tag", token("auth_tag", "00")),
            ("key index out of range", token("key_index", 1000)),
            ("table id out of range", token("table_id", -3)),
            ("missing field", token("nonce", nil)),
            (
                "mobile with two pairs",
                [
                    "encrypted_nuc_token": try cam.mobileToken().encryptedNucToken,
                    "table_references": Array(cam.tableAssignments.prefix(2)), "key_indices": [1, 2],
                ]
            ),
            ("an image hash beside a genuine token", ["camera_token": good, "image_hash": String(repeating: "a", count: 64)]),
        ]
        for (name, body) in cases {
            let result = try await h.validate(json: body)
            #expect(result.reason == .malformed, "\(name): \(String(describing: result.reason))")
        }
        // Provisioning requests with bad fields are answered `rejected`/`malformed`, recording nothing.
        let key = Base64.encode(try X25519.generate().publicKey)
        let nuc = Hex.encode(try SecureRandom.bytes(32))
        let badProvisioning: [(String, Message<ProvisionRequest>)] = [
            (
                "low-order public key",
                Message(
                    ProvisionRequest(
                        deviceSerial: "CAM-\(h.id)-z", devicePublicKey: Base64.encode(Data(count: 32)), nucHash: nuc,
                        deviceFamily: nil))
            ),
            (
                "short public key",
                Message(ProvisionRequest(deviceSerial: "CAM-\(h.id)-s", devicePublicKey: "AAAA", nucHash: nuc, deviceFamily: nil))
            ),
            (
                "serial with a space",
                Message(ProvisionRequest(deviceSerial: "CAM \(h.id)", devicePublicKey: key, nucHash: nuc, deviceFamily: nil))
            ),
            (
                "bad NUC hex",
                Message(ProvisionRequest(deviceSerial: "CAM-\(h.id)-n", devicePublicKey: key, nucHash: "xyz", deviceFamily: nil))
            ),
        ]
        for (name, request) in badProvisioning {
            let result = try await h.provisionRaw(request)
            #expect(result.status == .rejected && result.reason == .malformed, "\(name): \(result.status)")
            #expect(result.sealedProvisioning == nil && result.tableAssignments == nil)
        }
        let devices = try await h.pool.query("SELECT count(*)::bigint FROM \(unescaped: h.configuration.schema).devices")
        #expect(try devices[0].column(0, as: Int64.self) == 1, "a malformed provisioning request recorded a device")

        // The genuine token was never consumed by the image-hash request: it still passes.
        #expect(try await h.validate(json: ["camera_token": good]).valid)
        try Self.validateSchemas(h, expectSecurity: false)
        await h.close()
    }

    /// Retired tables get no new assignments and still validate.
    @Test func retiredTableStillValidates() async throws {
        let h = try await AuthorityHarness(tables: 6)
        let service = try await h.start("r")
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-r")
        let retired = cam.tableAssignments[0]
        try await h.sendAdmin(
            Message(AdminCommand(command: .retireTable, tableId: retired, reason: "end of life")))
        #expect(await h.waitForSecurity(.tableRetired))
        #expect(try await h.validate(cam.referenceRequest(table: retired).token).valid)
        for i in 0..<6 {
            let other = try await h.provisioned("CAM-\(h.id)-r\(i)")
            #expect(!other.tableAssignments.contains(retired), "retired table \(retired) was assigned")
        }
        await h.close()
    }

    /// The KEK comes from a file or a variable; a KEK that does not open the stored tables stops
    /// start-up with one clear line, and no key material in the output.
    @Test func wrongKEKRefusesToStartAndTheVariableWorks() async throws {
        let h = try await AuthorityHarness(tables: 4)
        let wrong = try AuthoritySecrets.generateText()
        let refused = try ServiceProcess(
            "hallmark-authority", name: "\(h.id)-wrong",
            environment: [
                "HALLMARK_AUTHORITY_SCHEMA": h.configuration.schema, "HALLMARK_AUTHORITY_KEK_FILE": "",
                "HALLMARK_AUTHORITY_KEK": wrong, "HALLMARK_GROUP_ID": "test-authority-\(h.id)",
                "HALLMARK_AUTHORITY_OPERATOR_KEYS_FILE": h.operatorKeysFile,
            ])
        #expect(await refused.waitForExit(timeout: .seconds(60)) == 1)
        #expect(refused.rawLog.contains("cannot start: HALLMARK_AUTHORITY_KEK"))
        let wrongKeys = wrong.split(separator: "\n").compactMap { $0.split(separator: "=").last.map(String.init) }
        #expect(!wrongKeys.contains { refused.rawLog.contains($0) }, "a key was printed")
        let text = try String(contentsOfFile: h.secretsFile, encoding: .utf8)
        let service = try await h.start("variable", ["HALLMARK_AUTHORITY_KEK_FILE": "", "HALLMARK_AUTHORITY_KEK": text])
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-v")
        #expect(try await h.validate(cam.referenceRequest().token).valid)
        await h.close()
    }

    static func flip(_ hex: String) -> String {
        var chars = Array(hex)
        chars[0] = chars[0] == "0" ? "1" : "0"
        return String(chars)
    }

    /// Every message the authority produced matches its schema in proto-json/.
    static func validateSchemas(_ h: AuthorityHarness, expectSecurity: Bool = true) throws {
        let byTopic: [(String, String)] = [
            (h.configuration.tokenOutput, "hallmark.token.result.v1"),
            (h.configuration.provisionOutput, "hallmark.provision.result.v1"),
            (h.configuration.securityTopic, "hallmark.security.event.v1"),
        ]
        for (topic, name) in byTopic {
            let schema = try JSONSchemaValidator.load(name)
            let messages = h.watcher.messages(on: topic)
            #expect(!messages.isEmpty || (!expectSecurity && topic == h.configuration.securityTopic), "nothing on \(topic)")
            for message in messages { try schema.validate(bytes: message) }
        }
    }
}
