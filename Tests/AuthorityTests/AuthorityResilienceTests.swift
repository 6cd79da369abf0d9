import HallmarkClient
import AuthorityCore
import Foundation
import HallmarkCLICore
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import HallmarkTestSupport
import Testing

/// KEK rotation under load, a replica killed mid-load, abuse thresholds.
@Suite("Authority under stress", .serialized, .timeLimit(.minutes(5)))
struct AuthorityResilienceTests {
    /// Sends `count` fresh tokens (alternating formats) spread over the cameras; returns the ids.
    static func sendTokens(_ h: AuthorityHarness, cameras: [ProvisioningFile], count: Int) async throws -> [MessageID] {
        var requests: [(MessageID, [UInt8], String)] = []
        for i in 0..<count {
            let cam = cameras[i % cameras.count]
            let id = MessageID.random()
            let bytes =
                i % 2 == 0
                ? try ProvisioningFile.requestBytes(cam.referenceRequest().token, id: id)
                : try ProvisioningFile.requestBytes(cam.mobileToken(), id: id)
            requests.append((id, bytes, cam.deviceSerial))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, request) in requests.enumerated() {
                if i >= 500 { try await group.next() }
                group.addTask {
                    try await h.producer.send(topic: h.configuration.tokenInput, key: Array(request.2.utf8), value: request.1)
                }
            }
            try await group.waitForAll()
        }
        return requests.map { $0.0 }
    }

    /// Every answer to each answered id, nil where an answer does not decode: a redelivered
    /// request may be answered twice, and each of its answers must hold.
    static func verdicts(_ h: AuthorityHarness, _ ids: [MessageID]) -> [MessageID: [Message<TokenResult>?]] {
        var out: [MessageID: [Message<TokenResult>?]] = [:]
        for id in ids {
            let answers = h.watcher.answers(for: id)
            if !answers.isEmpty { out[id] = answers.map { try? JSONDecoder().decode(Message<TokenResult>.self, from: Data($0)) } }
        }
        return out
    }

    /// The ids with an answer that is not a PASS (or does not decode).
    static func failures(_ verdicts: [MessageID: [Message<TokenResult>?]]) -> [MessageID] {
        verdicts.filter { !$0.value.allSatisfy { $0?.valid == true } }.map(\.key)
    }

    static func waitAnswered(_ h: AuthorityHarness, _ ids: [MessageID], timeout: Duration) async -> Bool {
        await h.watcher.wait(timeout: timeout) { w in ids.allSatisfy { !w.answers(for: $0).isEmpty } }
    }

    @Test func kekRotationWhileValidationsRunNothingFails() async throws {
        let h = try await AuthorityHarness()
        let a = try await h.start("k1")
        defer { a.signal(SIGKILL) }
        var cameras: [ProvisioningFile] = []
        for i in 0..<4 { cameras.append(try await h.provisioned("CAM-\(h.id)-k\(i)")) }
        // A certificate-mode camera too: the manufacturer CA is made, its key sealed under KEK 1.
        let provisioner = CameraProvisioner(producer: h.producer, watcher: h.watcher, topic: h.configuration.provisionInput)
        guard case .provisioned = try await provisioner.provision(serial: "CAM-\(h.id)-kc1", certificate: true) else {
            throw HarnessError("the certificate-mode camera was rejected")
        }

        // Rotation: add kek.2 (now current) beside kek.1, start a replica with it while the old
        // one keeps serving; its maintenance re-seals every row in the background.
        let old = try String(contentsOfFile: h.secretsFile, encoding: .utf8)
        let rotated = FileManager.default.temporaryDirectory.appendingPathComponent("authority-\(h.id)-v2.secrets").path
        try (old + "kek.2=\(Hex.encode(try SecureRandom.bytes(32)))\n").write(toFile: rotated, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: rotated) }
        let first = try await Self.sendTokens(h, cameras: cameras, count: 400)
        let b = try await h.start("k2", ["HALLMARK_AUTHORITY_KEK_FILE": rotated, "HALLMARK_AUTHORITY_RESEAL_BATCH": "5"])
        defer { b.signal(SIGKILL) }
        try await h.sendAdmin(Message(AdminCommand(command: .rotateKEK)))
        let second = try await Self.sendTokens(h, cameras: cameras, count: 400)
        #expect(await Self.waitAnswered(h, first + second, timeout: .seconds(120)))
        let results = Self.verdicts(h, first + second)
        #expect(results.count == 800)
        #expect(Self.failures(results).isEmpty, "failures: \(Self.failures(results).prefix(5))")

        // Every row moved to KEK 2, and validation still passes with only the rotated replica.
        let schema = h.configuration.schema
        let deadline = ContinuousClock.now + .seconds(60)
        var left = Int64.max
        while left > 0, ContinuousClock.now < deadline {
            let rows = try await h.pool.query(
                """
                SELECT (SELECT count(*) FROM \(unescaped: schema).key_tables WHERE kek_version <> 2)
                     + (SELECT count(*) FROM \(unescaped: schema).devices WHERE kek_version <> 2)
                     + (SELECT count(*) FROM \(unescaped: schema).certificate_authorities WHERE kek_version <> 2)
                """)
            left = try rows[0].decode(Int64.self)
            if left > 0 { try await Task.sleep(for: .milliseconds(300)) }
        }
        #expect(left == 0, "\(left) rows still under KEK 1")
        a.signal(SIGKILL)
        _ = await a.waitForExit(timeout: .seconds(10))
        // The CA's key, re-sealed under KEK 2, still issues with only the rotated replica.
        guard case .provisioned(let later) = try await provisioner.provision(serial: "CAM-\(h.id)-kc2", certificate: true),
            later.deviceCertificate != nil
        else { throw HarnessError("no certificate after the rotation") }
        let third = try await Self.sendTokens(h, cameras: cameras, count: 50)
        #expect(await Self.waitAnswered(h, third, timeout: .seconds(90)))
        let thirdResults = Self.verdicts(h, third)
        #expect(thirdResults.count == third.count && Self.failures(thirdResults).isEmpty)
        // A replica that has only the new file opens everything at start-up (strict load).
        let c = try await h.start("k3", ["HALLMARK_AUTHORITY_KEK_FILE": rotated])
        c.signal(SIGTERM)
        #expect(await c.waitForExit(timeout: .seconds(30)) == 0)
        // The audit trail holds the rotation: the KEK file's change (recorded by the replica
        // that started with it; the third, with the same file, recorded nothing) and the command.
        let rows: [Data] = try await h.pool.query("SELECT record FROM \(unescaped: schema).hallmark_audit ORDER BY sequence")
            .decode(Data.self)
        let records: [AuditRecord] = try rows.map { try JSONCoding.decode(Message<AuditRecord>.self, from: Array($0)).body }
        #expect(
            records.filter { $0.action == .kekRotation }.map { "\($0.keyID ?? "") \($0.reason ?? "")" }
                == ["kek.1 key_added", "kek.1 current_key_changed", "kek.2 key_added", "kek.2 current_key_changed"])
        #expect(records.filter { $0.action == .rotateKEK }.count == 1 && records.count == 5)
        #expect(try await AuditChainCheck.run(schema: schema, pool: h.pool).problem == nil)
        await h.close()
    }

    @Test func replicaKilledDuringLoadEveryRequestAnswered() async throws {
        let h = try await AuthorityHarness()
        let a = try await h.start("s1")
        let b = try await h.start("s2")
        defer { a.signal(SIGKILL); b.signal(SIGKILL) }
        var cameras: [ProvisioningFile] = []
        for i in 0..<20 { cameras.append(try await h.provisioned("CAM-\(h.id)-s\(i)")) }
        let ids = try await Self.sendTokens(h, cameras: cameras, count: 5_000)
        _ = await h.watcher.wait(timeout: .seconds(60)) { w in
            ids.prefix(1_500).filter { !w.answers(for: $0).isEmpty }.count > 800
        }
        a.signal(SIGKILL)
        let answeredAtKill = ids.filter { !h.watcher.answers(for: $0).isEmpty }.count
        #expect(answeredAtKill < 5_000, "the kill came after the load: it proves nothing")
        #expect(await a.waitForExit(timeout: .seconds(10)) != nil)
        let restarted = try await h.start("s1-again")
        defer { restarted.signal(SIGKILL) }
        #expect(await Self.waitAnswered(h, ids, timeout: .seconds(240)))
        let results = Self.verdicts(h, ids)
        #expect(results.count == 5_000, "\(5_000 - results.count) requests unanswered")
        #expect(Self.failures(results).isEmpty, "failures: \(Self.failures(results).prefix(5))")
        await h.close()
    }

    @Test func abuseThresholdsWarnThenBlacklist() async throws {
        let h = try await AuthorityHarness()
        let service = try await h.start(
            "abuse",
            [
                "HALLMARK_AUTHORITY_WARN_THRESHOLD": "5",
                "HALLMARK_AUTHORITY_BLACKLIST_THRESHOLD": "8",
            ])
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-abuse")
        var verdicts: [Message<TokenResult>] = []
        for _ in 0..<9 { verdicts.append(try await h.validate(cam.referenceRequest().token)) }
        #expect(verdicts.prefix(8).allSatisfy { $0.valid }, "\(verdicts.map(\.reason))")
        #expect(verdicts[8].reason == .token(.blacklisted))
        #expect(await h.waitForSecurity(.abuseWarning))
        #expect(await h.waitForSecurity(.abuseBlacklisted))
        let events = h.securityEvents()
        #expect(events.filter { $0.event == .abuseWarning }.count == 1)
        #expect(events.first { $0.event == .abuseWarning }?.count == 5)
        #expect(events.first { $0.event == .abuseBlacklisted }?.count == 8)
        // The service's own blacklisting is in the audit trail, by the service, once.
        // (Beside the KEK in force at start.)
        @Sendable func audited() throws -> [AuditRecord] {
            try h.watcher.messages(on: h.configuration.auditTopic).map {
                try JSONCoding.decode(Message<AuditRecord>.self, from: $0).body
            }
            .filter { !$0.action.isKeyRotation }
        }
        #expect(await h.watcher.wait(timeout: .seconds(30)) { _ in (try? audited().isEmpty) == false })
        let audited = try audited()
        #expect(audited.map(\.action) == [.abuseBlacklist] && audited.first?.actor == .service)
        #expect(audited.first?.reason == "validation_rate" && audited.first?.subjectType == .deviceSerial)
        #expect(try await AuditChainCheck.run(schema: h.configuration.schema, pool: h.pool).problem == nil)
        await h.close()
    }
}
