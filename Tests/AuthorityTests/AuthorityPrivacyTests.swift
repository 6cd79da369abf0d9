import AuthorityCore
import Foundation
import HallmarkCLICore
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import HallmarkTestSupport
import Testing

/// Privacy requests against the running authority, through `hallmark privacy`: a camera's
/// whole story (provisioned, validated, blacklisted, unblacklisted) is exported without key
/// material, then erased for real (rows gone, tokens `unknown_device`, re-provisioning
/// refused), and the audit trail shows every step and verifies. Unsigned and forged requests
/// are refused with a security event and touch nothing.
@Suite("Authority privacy requests", .serialized, .timeLimit(.minutes(10)))
struct AuthorityPrivacyTests {
    @Test func exportThenEraseACamera() async throws {
        let h = try await AuthorityHarness(tables: 6)
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("privacy-\(h.id).key").path
        defer { try? FileManager.default.removeItem(atPath: keyFile) }
        let operatorKey = try OperatorKeyFile.generate(keyID: "privacy-op")
        try operatorKey.write(to: keyFile)
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("privacy-\(h.id).operators").path
        defer { try? FileManager.default.removeItem(atPath: keys) }
        try Data((try h.operatorKey.publicEntry + "\n" + operatorKey.publicEntry + "\n").utf8).write(
            to: URL(fileURLWithPath: keys))
        let service = try await h.start(
            "privacy",
            [
                "HALLMARK_AUTHORITY_OPERATOR_KEYS_FILE": keys,
                "HALLMARK_AUTHORITY_COUNT_FLUSH_MS": "50",
            ])
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-privacy")
        let other = try await h.provisioned("CAM-\(h.id)-other")
        for _ in 0..<2 { #expect(try await h.validate(cam.referenceRequest().token).valid) }
        func admin(_ action: AdminCommand.Action) -> Message<AdminCommand> {
            Message(AdminCommand(command: action, deviceSerial: cam.deviceSerial, reason: "ticket 42"))
        }
        try await h.sendAdmin(admin(.blacklist))
        #expect(await h.waitForSecurity(.deviceBlacklisted))
        try await h.sendAdmin(admin(.unblacklist))
        #expect(await h.waitForSecurity(.deviceUnblacklisted))
        let schema = h.configuration.schema
        // The counts are flushed in the background: wait for them before exporting.
        try await Self.waitForCounts(h, serial: cam.deviceSerial)

        // Export: the device, its counts, its audit entries; nothing sealed, no key material.
        let export = try await Self.cli(h, ["export", "--device", cam.deviceSerial, "--reason", "ticket 43"], keyFile)
        #expect(export.code == 0, "\(export.text)")
        let exported = try #require(Self.result(export.text))
        #expect(exported.status == .completed && exported.service == "authority")
        let sources = Dictionary(grouping: exported.records ?? [], by: \.source)
        #expect(sources["\(schema).devices"]?.first?.fields["device_serial"] == .string(cam.deviceSerial))
        #expect(sources["\(schema).devices"]?.first?.fields["blacklisted"] == .bool(false))
        #expect(
            sources["\(schema).validation_counts"]?.reduce(Int64(0)) { sum, r in
                if case .integer(let n) = r.fields["validations"] { return sum + n } else { return sum }
            } == 2)
        #expect(
            sources["\(schema).hallmark_audit"]?.map { $0.fields["action"] } == [.string("blacklist"), .string("unblacklist")])
        for forbidden in ["nuc", "sealed", "master", "kek", other.deviceSerial] {
            #expect(!export.text.lowercased().contains(forbidden.lowercased()), "the export holds \(forbidden)")
        }

        // Erase: the rows go (checked in the database), a tombstone stays, tokens fail, the
        // serial cannot be provisioned again, the other camera is untouched.
        let erase = try await Self.cli(h, ["erase", "--device", cam.deviceSerial], keyFile)
        #expect(erase.code == 0, "\(erase.text)")
        let erased = try #require(Self.result(erase.text))
        #expect(erased.status == .completed)
        #expect(erased.erased?.first { $0.source == "\(schema).devices" }?.count == 1)
        #expect(erased.erased?.first { $0.source == "\(schema).validation_counts" }.map { $0.count > 0 } == true)
        #expect(erased.retained?.map(\.why).sorted { $0.rawValue < $1.rawValue } == [.auditTrail, .tombstone])
        let left = try await h.pool.query(
            """
            SELECT (SELECT count(*) FROM \(unescaped: schema).devices WHERE serial = \(cam.deviceSerial))::bigint,
                   (SELECT count(*) FROM \(unescaped: schema).devices)::bigint,
                   (SELECT count(*) FROM \(unescaped: schema).erased_devices)::bigint
            """)[0].decode((Int64, Int64, Int64).self)
        #expect(left == (0, 1, 1), "\(left)")
        #expect(try await h.validate(cam.referenceRequest().token).reason == .token(.unknownDevice))
        #expect(try await h.validate(other.referenceRequest().token).valid)
        guard case .rejected(let reason) = try await h.provision(cam.deviceSerial) else {
            Issue.record("an erased serial was provisioned again")
            return
        }
        #expect(reason == "erased_device")
        // Asked again, there is nothing left to export but the tombstone.
        let after = try await Self.cli(h, ["export", "--device", cam.deviceSerial], keyFile)
        let leftover = try #require(Self.result(after.text)).records ?? []
        #expect(Set(leftover.map(\.source)) == ["\(schema).erased_devices", "\(schema).hallmark_audit"])

        // The audit trail: every step, by the keys that signed them, and intact.
        let rows: [Data] = try await h.pool.query(
            """
            SELECT record FROM \(unescaped: schema).hallmark_audit ORDER BY sequence
            """
        ).decode(Data.self)
        let audit: [AuditRecord] = try rows.map { try JSONCoding.decode(Message<AuditRecord>.self, from: Array($0)).body }
        // First the KEKs in force when the authority started (KeyRotationRecorder).
        #expect(
            audit.prefix(2).map { "\($0.action.rawValue) \($0.keyID ?? "") \($0.reason ?? "")" }
                == ["kek_rotation kek.1 key_added", "kek_rotation kek.1 current_key_changed"])
        let steps = audit.dropFirst(2)
        #expect(steps.map(\.action) == [.blacklist, .unblacklist, .privacyExport, .privacyErase, .privacyExport])
        #expect(steps.map(\.actorKeyID) == [h.operatorKey.keyID, h.operatorKey.keyID, "privacy-op", "privacy-op", "privacy-op"])
        #expect(Set(steps.compactMap(\.subjectIndex)).count == 1 && steps.allSatisfy { $0.subjectType == .deviceSerial })
        #expect(exported.auditSequence == 5 && erased.auditSequence == 6)
        #expect(try await AuditChainCheck.run(schema: schema, pool: h.pool).problem == nil)
        // Every answer, audit record and provisioning answer (erased_device included) meets its schema.
        for (topic, name) in [
            (h.configuration.privacy.results, PrivacyResult.schemaName),
            (h.configuration.auditTopic, AuditRecord.schemaName),
            (h.configuration.provisionOutput, ProvisionResult.schemaName),
        ] {
            let validator = try JSONSchemaValidator.load(name)
            let messages = h.watcher.messages(on: topic)
            #expect(!messages.isEmpty, "nothing on \(topic)")
            for bytes in messages { try validator.validate(bytes: bytes) }
        }
        await h.close()
    }

    /// Unsigned, forged (another key under a known id), unknown-key and stale requests: each
    /// refused with its reason and a security event, and nothing is read, erased or audited.
    @Test func refusedRequestsTouchNothing() async throws {
        let h = try await AuthorityHarness(tables: 4)
        let service = try await h.start("privacy-refused")
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-keep")
        let stranger = try OperatorKeyFile.generate(keyID: "stranger")
        let impostor = try OperatorKeyFile.generate(keyID: h.operatorKey.keyID)
        func request(_ key: OperatorKeyFile, at time: Date = Date()) throws -> Message<PrivacyRequest> {
            try key.sign(
                Message(
                    PrivacyRequest(action: .erase, subjectType: .deviceSerial, subject: cam.deviceSerial),
                    producedAt: Timestamp(time)))
        }
        var unsigned =
            try JSONSerialization.jsonObject(with: Data(try JSONCoding.encode(try request(h.operatorKey)))) as! [String: Any]
        unsigned["signature"] = nil
        unsigned["key_id"] = nil
        let cases: [(String, [UInt8], MessageID)] = [
            ("unsigned", Array(try JSONSerialization.data(withJSONObject: unsigned)), unsigned["id"] as! String),
            ("forged", try JSONCoding.encode(try request(impostor)), ""),
            ("unknown key", try JSONCoding.encode(try request(stranger)), ""),
            ("stale", try JSONCoding.encode(try request(h.operatorKey, at: Date() - 3600)), ""),
        ].map { name, bytes, id in
            (name, bytes, id.isEmpty ? (try! JSONCoding.decode(Message<PrivacyRequest>.self, from: bytes)).id : MessageID(id)!)
        }
        // The unsigned one breaks the schema (key_id and signature are required): rejected like
        // every such input; its security event says why.
        let reasons = [
            "unsigned": "schema_violation", "forged": "bad_signature", "unknown key": "unknown_key",
            "stale": "stale_request",
        ]
        for (_, bytes, _) in cases {
            try await h.producer.send(topic: h.configuration.privacy.requests, key: Array(cam.deviceSerial.utf8), value: bytes)
        }
        for (name, _, id) in cases {
            let record = await h.waitForRejection(of: id)
            #expect(record?["reason"] as? String == reasons[name], "\(name): \(String(describing: record?["reason"]))")
        }
        #expect(
            await h.watcher.wait(timeout: .seconds(30)) { _ in
                h.securityEvents().filter { $0.event == .privacyRequestRejected }.count >= cases.count
            })
        let events = h.securityEvents().filter { $0.event == .privacyRequestRejected }
        #expect(Set(events.compactMap(\.requestID)) == Set(cases.map(\.2)))
        #expect(events.allSatisfy { $0.deviceSerial == nil })
        #expect(events.first { $0.requestID == cases[0].2 }?.reason == "unsigned_request")
        // Each is also answered `rejected` for the CLI, the unsigned one too (DESIGN §2: its id
        // reads). The answer is its own message: it may arrive after the rejected record and
        // the event, so wait.
        let answered: @Sendable () -> Set<String> = {
            Set(
                h.watcher.messages(on: h.configuration.privacy.results).compactMap {
                    try? JSONCoding.decode(Message<PrivacyResult>.self, from: $0)
                }.compactMap(\.reason?.rawValue))
        }
        let refusals: Set<String> = ["unsigned_request", "bad_signature", "unknown_key", "stale_request"]
        #expect(await h.watcher.wait(timeout: .seconds(30)) { _ in answered() == refusals })
        #expect(answered() == refusals)
        let state = try await h.pool.query(
            """
            SELECT (SELECT count(*) FROM \(unescaped: h.configuration.schema).devices)::bigint,
                   (SELECT count(*) FROM \(unescaped: h.configuration.schema).hallmark_audit)::bigint
            """)[0].decode((Int64, Int64).self)
        #expect(state == (1, 2), "no record but the two of the KEK in force at start")
        let eventSchema = try JSONSchemaValidator.load(SecurityEvent.schemaName)
        for event in h.watcher.messages(on: h.configuration.securityTopic) { try eventSchema.validate(bytes: event) }
        let resultSchema = try JSONSchemaValidator.load(PrivacyResult.schemaName)
        for answer in h.watcher.messages(on: h.configuration.privacy.results) { try resultSchema.validate(bytes: answer) }
        await h.close()
    }

    static func waitForCounts(_ h: AuthorityHarness, serial: String) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let n = try await h.pool.query(
                """
                SELECT coalesce(sum(count), 0)::bigint FROM \(unescaped: h.configuration.schema).validation_counts c
                JOIN \(unescaped: h.configuration.schema).devices d USING (device_id) WHERE d.serial = \(serial)
                """)[0].column(0, as: Int64.self)
            if n >= 2 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Runs `hallmark privacy …` against the harness's topics.
    static func cli(_ h: AuthorityHarness, _ arguments: [String], _ keyFile: String) async throws -> (code: Int32?, text: String)
    {
        let run = try ServiceProcess(
            "hallmark", arguments: ["privacy"] + arguments + ["--operator-key", keyFile, "--timeout", "60"],
            name: "\(h.id)-privacy-\(arguments[0])",
            environment: [
                "HALLMARK_PRIVACY_REQUESTS_TOPIC": h.configuration.privacy.requests,
                "HALLMARK_PRIVACY_RESULTS_TOPIC": h.configuration.privacy.results,
            ])
        let code = await run.waitForExit(timeout: .seconds(90))
        return (code, run.rawLog)
    }

    /// The authority's result in the CLI's combined document.
    static func result(_ text: String) -> Message<PrivacyResult>? {
        guard let start = text.firstIndex(of: "{"),
            let document = try? JSONSerialization.jsonObject(with: Data(text[start...].utf8)) as? [String: Any],
            (document["answered"] as? [String]) == ["authority"],
            let first = (document["results"] as? [Any])?.first,
            let bytes = try? JSONSerialization.data(withJSONObject: first)
        else { return nil }
        return try? JSONCoding.decode(Message<PrivacyResult>.self, from: [UInt8](bytes))
    }
}
