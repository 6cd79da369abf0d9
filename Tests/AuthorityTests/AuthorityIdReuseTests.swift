import AuthorityCore
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkRuntime
import HallmarkTestSupport
import Testing

/// DESIGN §2's rules on ids and answers, against the running authority: an id used again on
/// another topic or for other bytes is refused `id_reused` with a security event (it was taken
/// for a redelivery and dropped in silence); a signed admin command sent again is answered
/// `replayed_command`, then `stale_command` past its window; answers carry ids as written; a
/// provisioning request whose envelope is broken is answered on the result topic too.
@Suite("Authority: reused ids, replays, ids as written", .serialized, .timeLimit(.minutes(6)))
struct AuthorityIdReuseTests {
    static func request(_ id: MessageID, _ serial: String) throws -> Message<ProvisionRequest> {
        Message(
            ProvisionRequest(
                deviceSerial: serial, devicePublicKey: Base64.encode(try X25519.generate().publicKey),
                nucHash: Hex.encode(try SecureRandom.bytes(32)), deviceFamily: nil), id: id)
    }

    /// The provisioning answers to `id` seen so far, decoded.
    static func provisionAnswers(_ h: AuthorityHarness, _ id: MessageID) -> [Message<ProvisionResult>] {
        h.watcher.messages(on: h.configuration.provisionOutput)
            .compactMap { try? JSONDecoder().decode(Message<ProvisionResult>.self, from: Data($0)) }
            .filter { $0.requestID == id }
    }

    /// Every answer, event and rejected record seen is valid under its schema.
    static func validateSchemas(_ h: AuthorityHarness) throws {
        for (topic, name) in [
            (h.configuration.provisionOutput, ProvisionResult.schemaName),
            (h.configuration.securityTopic, SecurityEvent.schemaName),
            (h.rejected, RejectedRecord.schemaName),
        ] {
            let schema = try JSONSchemaValidator.load(name)
            for message in h.watcher.messages(on: topic) { try schema.validate(bytes: message) }
        }
    }

    @Test func anIdUsedAgainOnAnotherTopicOrForOtherBytesIsRefusedWithAnEvent() async throws {
        let h = try await AuthorityHarness(tables: 6)
        let service = try await h.start("reuse")
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-reuse")

        // A provisioning request, then a correctly signed blacklist command with its id.
        let x = MessageID.random()
        #expect(try await h.provisionRaw(Self.request(x, "CAM-\(h.id)-x")).status == .provisioned)
        try await h.sendAdmin(
            Message(AdminCommand(command: .blacklist, deviceSerial: cam.deviceSerial, reason: "test"), id: x))
        #expect(await h.waitForRejection(of: x)?["reason"] as? String == "id_reused")
        #expect(
            await h.watcher.wait(timeout: .seconds(30)) { _ in
                h.securityEvents().contains { $0.event == .idReused && $0.requestID == x && $0.reason == "other_topic" }
            }, "no id_reused event for the admin command")
        // The camera is still valid: the command did nothing.
        let blacklisted = try await h.pool.query(
            """
            SELECT blacklisted FROM \(unescaped: h.configuration.schema).devices WHERE serial = \(cam.deviceSerial)
            """)
        #expect(try blacklisted[0].column(0, as: Bool.self) == false)

        // An admin command that acts, then a provisioning request with its id.
        let y = MessageID.random()
        try await h.sendAdmin(
            Message(AdminCommand(command: .retireTable, tableId: cam.tableAssignments[0], reason: "test"), id: y))
        #expect(await h.waitForSecurity(.tableRetired))
        let reused = try await h.provisionRaw(Self.request(y, "CAM-\(h.id)-y"))
        #expect(reused.status == .rejected && reused.reason == .idReused, "\(reused.status) \(String(describing: reused.reason))")
        #expect(reused.requestID == y && reused.correlationID == y.text && reused.sealedProvisioning == nil)

        // The first provisioning id again, for another camera on the same topic: refused, and
        // its answer is not the first one's (whose id a consumer already dropped copies of).
        try await h.producer.send(
            topic: h.configuration.provisionInput, key: nil,
            value: try JSONCoding.encode(Self.request(x, "CAM-\(h.id)-x2")))
        #expect(await h.watcher.wait(timeout: .seconds(30)) { _ in Self.provisionAnswers(h, x).count == 2 })
        let answers = Self.provisionAnswers(h, x)
        #expect(answers.last?.reason == .idReused && Set(answers.map(\.id)).count == 2)
        #expect(
            await h.watcher.wait(timeout: .seconds(30)) { _ in
                h.securityEvents().contains { $0.event == .idReused && $0.requestID == x && $0.reason == "other_bytes" }
            })
        let devices = try await h.pool.query(
            """
            SELECT count(*)::bigint FROM \(unescaped: h.configuration.schema).devices WHERE serial = \("CAM-\(h.id)-x2")
            """)
        #expect(try devices[0].column(0, as: Int64.self) == 0, "the reused id provisioned a camera")
        try Self.validateSchemas(h)
        await h.close()
    }

    @Test func aSignedCommandSentAgainIsAReplayThenStale() async throws {
        let h = try await AuthorityHarness(tables: 6)
        let window = 10.0  // room for a loaded machine between signing and processing
        let service = try await h.start("replay", ["HALLMARK_AUTHORITY_ADMIN_WINDOW_S": "\(Int(window))"])
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-replay")
        let signedAt = Date()
        let command = Message(
            AdminCommand(command: .blacklist, deviceSerial: cam.deviceSerial, reason: "test"),
            producedAt: Timestamp(signedAt))
        let bytes = try JSONCoding.encode(try h.operatorKey.sign(command))
        try await h.sendAdmin(bytes: bytes)
        #expect(await h.waitForSecurity(.deviceBlacklisted))

        try await h.sendAdmin(bytes: bytes)
        #expect(await h.waitForRejection(of: command.id)?["reason"] as? String == "replayed_command")
        // Past the window, the same bytes are stale.
        #expect(await h.watcher.wait(timeout: .seconds(30)) { _ in Date() > signedAt + window + 1 })
        try await h.sendAdmin(bytes: bytes)
        #expect(
            await h.watcher.wait(timeout: .seconds(30)) { _ in
                h.rejectedRecords().filter { $0["original_id"] as? String == command.id.text }.count == 2
            })
        let reasons = h.rejectedRecords().filter { $0["original_id"] as? String == command.id.text }.compactMap {
            $0["reason"] as? String
        }
        #expect(reasons == ["replayed_command", "stale_command"], "\(reasons)")
        #expect(
            await h.watcher.wait(timeout: .seconds(30)) { _ in
                h.securityEvents().filter { $0.event == .replayedCommand }.count == 2
            })
        let events = h.securityEvents().filter { $0.event == .replayedCommand }
        #expect(events.map(\.reason) == ["replayed_command", "stale_command"] && Set(events.map(\.id)).count == 2)
        #expect(events.allSatisfy { $0.requestID == command.id && $0.keyID == h.operatorKey.keyID && $0.deviceSerial == nil })
        // It acted once.
        #expect(h.securityEvents().filter { $0.event == .deviceBlacklisted }.count == 1)
        try Self.validateSchemas(h)
        await h.close()
    }

    @Test func aSignedPrivacyRequestSentAgainIsAReplay() async throws {
        let h = try await AuthorityHarness(tables: 4)
        let service = try await h.start("privacy-replay")
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-privacy-replay")
        let request = try h.operatorKey.sign(
            Message(PrivacyRequest(action: .export, subjectType: .deviceSerial, subject: cam.deviceSerial)))
        let bytes = try JSONCoding.encode(request)
        let results = { @Sendable in
            h.watcher.messages(on: h.configuration.privacy.results).compactMap {
                try? JSONCoding.decode(Message<PrivacyResult>.self, from: $0)
            }
            .filter { $0.requestID == request.id }
        }
        try await h.producer.send(topic: h.configuration.privacy.requests, key: Array(cam.deviceSerial.utf8), value: bytes)
        #expect(await h.watcher.wait(timeout: .seconds(30)) { _ in results().count == 1 })
        try await h.producer.send(topic: h.configuration.privacy.requests, key: Array(cam.deviceSerial.utf8), value: bytes)
        #expect(await h.watcher.wait(timeout: .seconds(30)) { _ in results().count == 2 }, "the replay got no answer")
        let answers = results()
        #expect(answers.first?.status == .completed)
        #expect(
            answers.last?.status == .rejected && answers.last?.reason == .replayedCommand && Set(answers.map(\.id)).count == 2)
        #expect(await h.waitForRejection(of: request.id)?["reason"] as? String == "replayed_command")
        #expect(
            await h.watcher.wait(timeout: .seconds(30)) { _ in
                h.securityEvents().contains {
                    $0.event == .privacyRequestRejected && $0.requestID == request.id && $0.reason == "replayed_command"
                }
            })
        try Self.validateSchemas(h)
        await h.close()
    }

    @Test func aTokenRequestSentFiveTimesIsCountedOnce() async throws {
        let h = try await AuthorityHarness(tables: 6)
        let service = try await h.start("counts", ["HALLMARK_AUTHORITY_COUNT_FLUSH_MS": "100"])
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-counts")
        // Ten requests, each sent five times back to back (one Kafka key: one partition, so the
        // copies share batches, as a requester's re-sends do).
        let requests = try (0..<10).map { _ in
            let (id, token) = try cam.referenceRequest()
            return (id, try ProvisioningFile.requestBytes(token, id: id))
        }
        for (_, bytes) in requests {
            for _ in 0..<5 { try await h.producer.send(topic: h.configuration.tokenInput, key: Array("cam".utf8), value: bytes) }
        }
        #expect(await h.watcher.wait(timeout: .seconds(60)) { w in requests.allSatisfy { w.answers(for: $0.0).count == 5 } })
        let verdicts = requests.flatMap { h.watcher.answers(for: $0.0) }
            .compactMap { try? JSONDecoder().decode(Message<TokenResult>.self, from: Data($0)) }
        #expect(verdicts.count == 50 && verdicts.allSatisfy(\.valid), "a copy was judged a replay")
        // Every validation was counted before its answer went: the flushes after it hold them all.
        let answered = Date()
        #expect(await h.watcher.wait(timeout: .seconds(30)) { _ in Date() > answered + 1 })  // ten flush intervals
        let counted = try await h.pool.query(
            """
            SELECT coalesce(sum(count), 0)::bigint FROM \(unescaped: h.configuration.schema).validation_counts c
            JOIN \(unescaped: h.configuration.schema).devices d USING (device_id) WHERE d.serial = \(cam.deviceSerial)
            """)[0].column(0, as: Int64.self)
        #expect(counted == 10, "\(counted) validations counted for 10 requests")
        await h.close()
    }

    @Test func answersCarryIdsAsWrittenAndBrokenEnvelopesAreAnswered() async throws {
        let h = try await AuthorityHarness(tables: 6)
        let service = try await h.start("ids")
        defer { service.signal(SIGKILL) }
        // Swift's uuidString is upper case.
        let upper = MessageID(UUID().uuidString)!
        let result = try await h.provisionRaw(Self.request(upper, "CAM-\(h.id)-upper"))
        #expect(result.status == .provisioned && result.requestID == upper && result.correlationID == upper.text)

        // Envelopes that break a rule but have a readable id: answered `rejected`/`malformed`
        // on the result topic, besides the rejected record.
        func bytes(_ edit: (inout [String: Any]) -> Void) throws -> (MessageID, [UInt8]) {
            let id = MessageID.random()
            var object =
                try JSONSerialization.jsonObject(
                    with: Data(try JSONCoding.encode(try Self.request(id, "CAM-\(h.id)-\(id.text.prefix(8))")))) as! [String: Any]
            edit(&object)
            return (id, Array(try JSONSerialization.data(withJSONObject: object)))
        }
        let broken = [
            try bytes { $0["produced_at"] = "yesterday" },
            try bytes { $0["produced_at"] = nil },
            try bytes { $0["schema"] = nil },
            try bytes { $0["correlation_id"] = "has a space" },
            try bytes { $0["reply_to"] = "no/slashes" },
            try bytes { $0["schema"] = "hallmark.sign.request.v1" },
        ]
        for (_, value) in broken { try await h.producer.send(topic: h.configuration.provisionInput, key: nil, value: value) }
        for (id, _) in broken {
            let answer = await h.watcher.answer(for: id, on: h.configuration.provisionOutput, timeout: .seconds(30))
            let decoded = try answer.map { try JSONDecoder().decode(Message<ProvisionResult>.self, from: Data($0)) }
            #expect(decoded?.status == .rejected && decoded?.reason == .malformed, "no answer to a broken envelope")
            #expect(decoded?.correlationID == id.text)
            #expect(await h.waitForRejection(of: id) != nil)
        }
        try Self.validateSchemas(h)
        await h.close()
    }
}
