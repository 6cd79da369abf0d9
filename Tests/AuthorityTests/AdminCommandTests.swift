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

/// Signed admin commands against the running authority: a signed command acts; unsigned,
/// unknown-key, wrongly signed, tampered, stale, future and malformed ones are each rejected
/// with their reason and a security event, and change nothing.
@Suite("Authority admin commands", .serialized, .timeLimit(.minutes(10)))
struct AdminCommandTests {
    @Test func onlyCommandsSignedByAnOperatorKeyInTheirWindowAct() async throws {
        let h = try await AuthorityHarness(tables: 6)
        let service = try await h.start("admin")
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-admin")
        let table = cam.tableAssignments[0]
        let before = try await Self.state(h)

        func command(_ action: AdminCommand.Action, producedAt: Date = Date()) -> Message<AdminCommand> {
            Message(
                AdminCommand(
                    command: action, deviceSerial: action == .retireTable ? nil : cam.deviceSerial,
                    tableId: action == .retireTable ? table : nil, reason: "test"),
                producedAt: Timestamp(producedAt))
        }
        typealias Case = (name: String, reason: String, bytes: [UInt8], id: MessageID)
        func sent(_ name: String, _ reason: String, _ c: Message<AdminCommand>) throws -> Case {
            (name, reason, try JSONCoding.encode(c), c.id)
        }
        /// A command signed by the operator, then one member changed.
        func tampered(
            _ name: String, _ reason: String, _ c: Message<AdminCommand>,
            _ change: (inout [String: Any]) -> Void
        ) throws -> Case {
            let signed = try JSONCoding.encode(try h.operatorKey.sign(c))
            var object = try JSONSerialization.jsonObject(with: Data(signed)) as! [String: Any]
            change(&object)
            return (name, reason, Array(try JSONSerialization.data(withJSONObject: object)), c.id)
        }
        let stranger = try OperatorKeyFile.generate(keyID: "stranger")
        let impostor = try OperatorKeyFile.generate(keyID: h.operatorKey.keyID)  // a known id, another key
        let other = (table + 1) % 6
        let cases: [Case] = [
            try sent("unsigned", "unsigned_command", command(.blacklist)),
            try sent("unsigned retire", "unsigned_command", command(.retireTable)),
            try sent("unknown key", "unknown_key", try stranger.sign(command(.blacklist))),
            try sent("another key under a known id", "bad_signature", try impostor.sign(command(.blacklist))),
            try tampered("reason changed", "bad_signature", command(.blacklist)) { $0["reason"] = "other" },
            try tampered("serial changed", "bad_signature", command(.unblacklist)) {
                $0["device_serial"] = "CAM-\(h.id)-other"
            },
            try tampered("action changed", "bad_signature", command(.unblacklist)) { $0["command"] = "blacklist" },
            try tampered("table changed", "bad_signature", command(.retireTable)) { $0["table_id"] = other },
            try tampered("produced_at changed", "bad_signature", command(.blacklist, producedAt: Date() - 600)) {
                $0["produced_at"] = Timestamp.now().text
            },
            try tampered("a member added", "schema_violation", command(.blacklist)) { $0["note"] = "x" },
            try tampered("a malformed signature", "schema_violation", command(.blacklist)) { $0["signature"] = "c2ln" },
            try sent("stale", "stale_command", try h.operatorKey.sign(command(.blacklist, producedAt: Date() - 600))),
            try sent(
                "from the future", "stale_command",
                try h.operatorKey.sign(command(.retireTable, producedAt: Date() + 600))),
        ]

        for c in cases { try await h.sendAdmin(bytes: c.bytes) }
        for c in cases {
            let record = await h.waitForRejection(of: c.id)
            #expect(record?["reason"] as? String == c.reason, "\(c.name): \(String(describing: record?["reason"]))")
        }
        #expect(
            await h.watcher.wait(timeout: .seconds(30)) { _ in
                Set(h.securityEvents().filter { $0.event == .adminCommandRejected }.compactMap(\.requestID))
                    .isSuperset(of: cases.map(\.id))
            }, "a refused command raised no security event")
        for c in cases {
            let events = h.securityEvents().filter { $0.requestID == c.id }
            #expect(events.count == 1, "\(c.name): \(events.count) events")
            #expect(events.first?.event == .adminCommandRejected && events.first?.reason == c.reason, "\(c.name)")
            #expect(events.first?.deviceSerial == nil)
        }
        #expect(
            h.securityEvents().filter { [.deviceBlacklisted, .deviceUnblacklisted, .tableRetired].contains($0.event) }
                .isEmpty, "a refused command acted")
        #expect(try await Self.state(h) == before, "a refused command changed the database")

        // Signed, in its window: it acts, and the event names the operator key. The same
        // command sent again is a replay, refused `replayed_command` (DESIGN §2) without acting;
        // the unblacklist after it is processed.
        let blacklist = try JSONCoding.encode(try h.operatorKey.sign(command(.blacklist)))
        try await h.sendAdmin(bytes: blacklist)
        #expect(await h.waitForSecurity(.deviceBlacklisted))
        try await h.sendAdmin(bytes: blacklist)
        try await h.sendAdmin(command(.unblacklist))
        #expect(await h.waitForSecurity(.deviceUnblacklisted))
        // A redelivery may resend the first outputs (same ids) until they are forgotten; never new ones.
        #expect(
            Set(h.securityEvents().filter { $0.event == .deviceBlacklisted }.map(\.id)).count == 1,
            "a replay acted again")
        let replayedID = try JSONSerialization.jsonObject(with: Data(blacklist)) as! [String: Any]
        #expect(await h.waitForRejection(of: replayedID["id"] as! String)?["reason"] as? String == "replayed_command")
        #expect(h.securityEvents().first { $0.event == .deviceBlacklisted }?.keyID == h.operatorKey.keyID)
        try await h.sendAdmin(command(.retireTable))
        #expect(await h.waitForSecurity(.tableRetired))
        let retired = try await h.pool.query(
            """
            SELECT count(*)::bigint FROM \(unescaped: h.configuration.schema).key_tables WHERE retired
            """)
        #expect(try retired[0].column(0, as: Int64.self) == 1)
        let schema = try JSONSchemaValidator.load(SecurityEvent.schemaName)
        for event in h.watcher.messages(on: h.configuration.securityTopic) { try schema.validate(bytes: event) }
        let rejectedSchema = try JSONSchemaValidator.load(RejectedRecord.schemaName)
        for record in h.watcher.messages(on: h.rejected) { try rejectedSchema.validate(bytes: record) }
        try await Self.auditTrailShowsEveryStep(h, serial: cam.deviceSerial, table: table, refused: cases.map(\.id))
        await h.close()
    }

    /// The audit trail after the commands above: the signed ones in order (the replay once),
    /// a signed command naming no device as `rejected`, none of the refused ones (an
    /// unauthenticated sender must not write to it); the same records on the audit topic,
    /// naming the device only by index; `hallmark audit verify` passes, then finds an edit.
    static func auditTrailShowsEveryStep(_ h: AuthorityHarness, serial: String, table: Int, refused: [MessageID]) async throws {
        let nobody = Message(AdminCommand(command: .blacklist, deviceSerial: "CAM-\(h.id)-nobody", reason: "test"))
        try await h.sendAdmin(nobody)
        #expect(await h.waitForRejection(of: nobody.id)?["reason"] as? String == "unknown_device")
        let schema = try JSONSchemaValidator.load(AuditRecord.schemaName)
        #expect(
            await h.watcher.wait(timeout: .seconds(30)) { _ in h.watcher.messages(on: h.configuration.auditTopic).count >= 6 })
        let published = try h.watcher.messages(on: h.configuration.auditTopic).map { bytes in
            try schema.validate(bytes: bytes)
            #expect(!String(decoding: bytes, as: UTF8.self).contains(serial))
            return try JSONCoding.decode(Message<AuditRecord>.self, from: bytes)
        }
        let all = Dictionary(published.map { ($0.sequence, $0) }) { first, _ in first }.values.sorted {
            $0.sequence < $1.sequence
        }
        #expect(Message<AuditRecord>.firstBreak(in: all) == nil)
        // The KEK in force at start comes first; then the commands.
        #expect(all.prefix(2).map(\.action) == [.kekRotation, .kekRotation] && all.prefix(2).allSatisfy { $0.keyID == "kek.1" })
        let records = Array(all.dropFirst(2))
        #expect(records.map(\.action) == [.blacklist, .unblacklist, .retireTable, .blacklist])
        #expect(records.map(\.outcome) == [.succeeded, .succeeded, .succeeded, .rejected])
        #expect(records.last?.reason == "unknown_device" && records.allSatisfy { $0.actorKeyID == h.operatorKey.keyID })
        #expect(records[0].subjectIndex != nil && records[0].subjectIndex == records[1].subjectIndex)
        #expect(records[2].tableID == table && records.allSatisfy { record in !refused.contains { $0 == record.requestID } })

        let env = ["HALLMARK_AUTHORITY_SCHEMA": h.configuration.schema, "HALLMARK_AUDIT_TOPIC": h.configuration.auditTopic]
        let intact = try ServiceProcess(
            "hallmark", arguments: ["audit", "verify", "--service", "authority"],
            name: "\(h.id)-audit", environment: env)
        #expect(await intact.waitForExit(timeout: .seconds(60)) == 0)
        #expect(intact.rawLog.contains("intact, 6 records") && intact.rawLog.contains("6 records match"), "\(intact.rawLog)")
        try await h.pool.execute(
            """
            UPDATE \(unescaped: h.configuration.schema).hallmark_audit
            SET record = convert_to(replace(convert_from(record, 'UTF8'), '"succeeded"', '"failed"'), 'UTF8')
            WHERE sequence = 3
            """)
        let broken = try ServiceProcess(
            "hallmark", arguments: ["audit", "verify", "--service", "authority"],
            name: "\(h.id)-audit-broken", environment: env)
        #expect(await broken.waitForExit(timeout: .seconds(60)) == 1)
        #expect(broken.rawLog.contains("BROKEN at record 3"), "\(broken.rawLog)")

        // Someone who can write the table rewrites the chain from record 3 on, and the head,
        // so that it checks; the copy published on the audit topic still tells.
        try await rechain(h, from: all)
        let table = try ServiceProcess(
            "hallmark", arguments: ["audit", "verify", "--service", "authority", "--table-only"],
            name: "\(h.id)-audit-rewritten-table", environment: env)
        #expect(await table.waitForExit(timeout: .seconds(60)) == 0, "the rewritten chain checks: \(table.rawLog)")
        let rewritten = try ServiceProcess(
            "hallmark", arguments: ["audit", "verify", "--service", "authority"],
            name: "\(h.id)-audit-rewritten", environment: env)
        #expect(await rewritten.waitForExit(timeout: .seconds(60)) == 1)
        #expect(rewritten.rawLog.contains("BROKEN at record 3") && rewritten.rawLog.contains("rewritten"), "\(rewritten.rawLog)")
    }

    /// Rewrites `records` from the third on into a chain that checks (the third now `failed`),
    /// rows and head, as an attacker with write access to the table could.
    static func rechain(_ h: AuthorityHarness, from records: [Message<AuditRecord>]) async throws {
        let schema = h.configuration.schema
        var previous = records[1]
        for (i, m) in records.enumerated().dropFirst(2) {
            let r = m.body
            let forged = try Message(
                chaining: AuditRecord(
                    service: r.service, after: previous.body,
                    occurredAt: r.occurredAt, actor: r.actor, actorKeyID: r.actorKeyID, action: r.action,
                    subjectType: r.subjectType, subjectIndex: r.subjectIndex, tableID: r.tableID,
                    outcome: i == 2 ? .failed : r.outcome, reason: r.reason),
                id: m.id, producedAt: m.producedAt, requestID: m.requestID)
            try await h.pool.execute(
                """
                UPDATE \(unescaped: schema).hallmark_audit SET record = \(Data(try JSONCoding.encode(forged)))
                WHERE sequence = \(Int64(forged.sequence))
                """)
            previous = forged
        }
        try await h.pool.execute("UPDATE \(unescaped: schema).hallmark_audit_head SET hash = \(previous.hash)")
    }

    /// The CLI end to end: `operator-key` prints only the public entry, `admin` signs with the
    /// file, and the authority configured with that entry acts on it.
    @Test func theCLIMakesAKeyAndSignsWithIt() async throws {
        let h = try await AuthorityHarness(tables: 4)
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("operator-\(h.id).key").path
        let keysFile = FileManager.default.temporaryDirectory.appendingPathComponent("operators-\(h.id)").path
        defer {
            try? FileManager.default.removeItem(atPath: keyFile)
            try? FileManager.default.removeItem(atPath: keysFile)
        }
        let make = try ServiceProcess(
            "hallmark",
            arguments: [
                "authority", "operator-key", "--key-id", "cli-op",
                "--out", keyFile,
            ], name: "\(h.id)-keygen", environment: [:])
        #expect(await make.waitForExit(timeout: .seconds(60)) == 0)
        let printed = make.rawLog.trimmingCharacters(in: .whitespacesAndNewlines)
        let seed = try #require(
            try String(contentsOfFile: keyFile, encoding: .utf8).split(separator: "\n")
                .first { $0.hasPrefix("seed=") }.map { String($0.dropFirst(5)) })
        #expect(!make.rawLog.contains(seed), "the private key was printed")
        #expect(try OperatorKeys.parse(printed, variable: "stdout")["cli-op"] == OperatorKeyFile.load(keyFile).publicKey)
        #expect(try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int == 0o600)
        try Data((printed + "\n").utf8).write(to: URL(fileURLWithPath: keysFile))

        let service = try await h.start("cli", ["HALLMARK_AUTHORITY_OPERATOR_KEYS_FILE": keysFile])
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-cli")
        let env = ["HALLMARK_AUTHORITY_ADMIN_INPUT": h.configuration.adminInput]
        let unsignedRun = try ServiceProcess(
            "hallmark",
            arguments: [
                "authority", "admin", "blacklist", "--serial",
                cam.deviceSerial,
            ], name: "\(h.id)-nokey",
            environment: env.merging(["HALLMARK_OPERATOR_KEY_FILE": ""]) { $1 })
        #expect(await unsignedRun.waitForExit(timeout: .seconds(60)) != 0, "the CLI sent an unsigned command")
        let admin = try ServiceProcess(
            "hallmark",
            arguments: [
                "authority", "admin", "blacklist", "--serial", cam.deviceSerial,
                "--reason", "lost", "--operator-key", keyFile,
            ],
            name: "\(h.id)-admin", environment: env)
        #expect(await admin.waitForExit(timeout: .seconds(60)) == 0)
        #expect(await h.waitForSecurity(.deviceBlacklisted))
        #expect(h.securityEvents().first { $0.event == .deviceBlacklisted }?.keyID == "cli-op")
        #expect(!admin.rawLog.contains(seed))
        await h.close()
    }

    /// Without an operator key no admin command could ever act: the authority refuses to start.
    @Test func noOperatorKeyRefusesToStart() async throws {
        let h = try await AuthorityHarness(tables: 2)
        let refused = try ServiceProcess(
            "hallmark-authority", name: "\(h.id)-nokeys",
            environment: [
                "HALLMARK_AUTHORITY_SCHEMA": h.configuration.schema, "HALLMARK_AUTHORITY_KEK_FILE": h.secretsFile,
                "HALLMARK_AUTHORITY_OPERATOR_KEYS_FILE": "", "HALLMARK_AUTHORITY_OPERATOR_KEYS": "",
                "HALLMARK_GROUP_ID": "test-authority-\(h.id)",
            ])
        #expect(await refused.waitForExit(timeout: .seconds(60)) == 1)
        #expect(refused.rawLog.contains("cannot start: HALLMARK_AUTHORITY_OPERATOR_KEYS_FILE"))
        await h.close()
    }

    /// Everything an admin command can change: each device's blacklisting and each table's
    /// retirement.
    static func state(_ h: AuthorityHarness) async throws -> [String] {
        let schema = h.configuration.schema
        let devices = try await h.pool.query(
            """
            SELECT serial || ':' || blacklisted::text || ':' || coalesce(blacklist_reason, '-') || ':' || changed_at::text
            FROM \(unescaped: schema).devices ORDER BY serial
            """
        ).decode(String.self)
        let tables = try await h.pool.query(
            """
            SELECT table_id::text || ':' || retired::text FROM \(unescaped: schema).key_tables ORDER BY table_id
            """
        ).decode(String.self)
        return devices + tables
    }
}
