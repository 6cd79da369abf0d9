import Foundation
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import SignerCore
import HallmarkTestSupport
import Testing

/// Bad input, security events, replicas and crashes, with the service as its own process.
@Suite("Signer robustness", .serialized, .timeLimit(.minutes(5)))
struct SignerRobustnessTests {
    /// 200 malformed messages of many kinds: each gets exactly one typed answer (a rejected
    /// record, or a `malformed` verdict); valid messages after them are still answered.
    @Test func malformedMessagesAreRejectedAndTheServiceKeepsAnswering() async throws {
        let h = try await SignerHarness(secrets: ["v1": "k"], signing: "v1")
        defer { Task { await h.close() } }
        let signer = try await h.startSigner("malformed", ["HALLMARK_MAX_MESSAGE_BYTES": "65536"])
        let envelope = { (schema: String) in
            #""schema":"\#(schema)","id":"\#(MessageID.random())","produced_at":"\#(Timestamp.now().text)""#
        }
        // Each kind names where its answers go: a verify request that parses as an envelope of
        // the verify schema but breaks the schema is answered `malformed` on the verify result
        // topic (DESIGN SIGN-1); a sign request with a readable id gets a rejected record and a
        // rejected sign result (DESIGN §2); everything else is a rejected record.
        enum Answer { case rejected, malformed, refusedSign(String) }
        let kinds: [(topic: String, answer: Answer, make: () -> [UInt8])] = [
            (h.verifyInput, .rejected, { Array("not json".utf8) }),
            (h.verifyInput, .rejected, { Array("[1,2,3]".utf8) }),
            (h.verifyInput, .rejected, { [0xFF, 0xFE, 0x7B, 0x7D] }),
            (h.verifyInput, .rejected, { Array("{}".utf8) }),
            (
                h.verifyInput, .rejected,
                { Array(#"{"schema":"hallmark.verify.request.v1","id":"nope","produced_at":"\#(Timestamp.now().text)"}"#.utf8) }
            ),
            (
                h.verifyInput, .rejected,
                {
                    Array(
                        #"{"schema":"hallmark.verify.request.v1","id":"\#(MessageID.random())","produced_at":"yesterday"}"#.utf8)
                }
            ),
            (h.verifyInput, .rejected, { Array("{\(envelope("hallmark.other.v1")),\"headers\":{}}".utf8) }),
            (
                h.verifyInput, .malformed,
                { Array("{\(envelope(VerifyRequest.schemaName)),\"method\":\"POST\",\"path\":\"/\",\"body_b64\":\"\"}".utf8) }
            ),
            (
                h.verifyInput, .malformed,
                {
                    Array(
                        "{\(envelope(VerifyRequest.schemaName)),\"method\":\"POST\",\"path\":\"/\",\"headers\":7,\"body_b64\":\"\"}"
                            .utf8)
                }
            ),
            (
                h.verifyInput, .malformed,
                {
                    Array(
                        "{\(envelope(VerifyRequest.schemaName)),\"method\":\"POST\",\"path\":\"/\",\"headers\":{\"a\":1},\"body_b64\":\"\"}"
                            .utf8)
                }
            ),
            (
                h.verifyInput, .malformed,
                {
                    Array(
                        "{\(envelope(VerifyRequest.schemaName)),\"method\":\"POST\",\"path\":\"/\",\"headers\":{},\"body_b64\":\"***\"}"
                            .utf8)
                }
            ),
            (
                h.verifyInput, .malformed,
                { Array("{\(envelope(VerifyRequest.schemaName)),\"path\":\"/\",\"headers\":{},\"body_b64\":\"\"}".utf8) }
            ),
            (
                h.signInput, .refusedSign("malformed"),
                { Array("{\(envelope(SignRequest.schemaName)),\"headers\":{\"A\":\"1\",\"a\":\"2\"},\"body_b64\":\"\"}".utf8) }
            ),
            (
                h.signInput, .refusedSign("malformed"),
                { Array("{\(envelope(SignRequest.schemaName)),\"headers\":{},\"body_b64\":\"\",\"timestamp\":\"soon\"}".utf8) }
            ),
            (h.signInput, .refusedSign("malformed"), { Array("{\(envelope(SignRequest.schemaName)),\"body_b64\":\"\"}".utf8) }),
            (
                h.signInput, .refusedSign("oversized"),
                {
                    Array(
                        "{\(envelope(SignRequest.schemaName)),\"headers\":{},\"body_b64\":\"\(String(repeating: "A", count: 70_000))\"}"
                            .utf8)
                }
            ),
        ]
        var expectRejected = 0
        var malformedIDs: [String] = []
        var refusedSigns: [String: String] = [:]
        for i in 0..<200 {
            let kind = kinds[i % kinds.count]
            let bytes = kind.make()
            func id() throws -> String {
                let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
                return try #require(object?["id"] as? String)
            }
            switch kind.answer {
            case .rejected: expectRejected += 1
            case .malformed: malformedIDs.append(try id())
            case .refusedSign(let reason):
                expectRejected += 1
                refusedSigns[try id()] = reason
            }
            try await h.send(kind.topic, key: "bad-\(i % 7)", bytes)
        }
        let body = Data("after".utf8)
        let valid = Fixtures.verify(try Fixtures.signedHeaders(secret: "k", body: body), body: body)
        try await h.send(h.verifyInput, key: "partner-1", message: valid)
        let answered = try await h.results(h.verifyOutput, for: [valid.id])
        #expect(answered[valid.id]?.first?["verdict"] as? String == "accepted")
        let verdicts = try await h.results(h.verifyOutput, for: malformedIDs)
        #expect(verdicts.count == malformedIDs.count)
        #expect(verdicts.values.allSatisfy { $0.count == 1 && $0.first?["reason"] as? String == "malformed" })
        let signAnswers = try await h.results(h.signOutput, for: Array(refusedSigns.keys))
        #expect(signAnswers.count == refusedSigns.count)
        for (id, reason) in refusedSigns {
            let answer = signAnswers[id]
            #expect(
                answer?.count == 1 && answer?.first?["status"] as? String == "rejected"
                    && answer?.first?["reason"] as? String == reason && answer?.first?["headers"] == nil,
                "\(reason): \(String(describing: answer))")
        }
        let rejected = try await h.read(h.rejected) { $0.count >= expectRejected }
        #expect(rejected.count == expectRejected)
        let sources = Set(
            rejected.compactMap { r -> String? in
                guard let s = r["source"] as? [String: Any] else { return nil }
                return "\(s["topic"] ?? "")/\(s["partition"] ?? "")/\(s["offset"] ?? "")"
            })
        #expect(sources.count == expectRejected)
        let reasons = Set(rejected.compactMap { $0["reason"] as? String })
        #expect(
            reasons.isSuperset(of: ["invalid_json", "invalid_envelope", "unknown_schema", "schema_violation", "oversized"]),
            "\(reasons)")
        #expect(signer.process.isRunning)
    }

    /// Rejections for one partner past the configured rate raise one rate event (besides the
    /// per-rejection `bad_mac` events, see SignerSecurityEventTests).
    @Test func rejectionRateRaisesASecurityEvent() async throws {
        let h = try await SignerHarness(secrets: ["v1": "k"], signing: "v1")
        defer { Task { await h.close() } }
        let signer = try await h.startSigner("alerts", ["HALLMARK_SIGNER_ALERT_REJECTIONS": "5"])
        let body = Data("x".utf8)
        var ids: [MessageID] = []
        for _ in 0..<8 {
            let r = Fixtures.verify(try Fixtures.signedHeaders(secret: "wrong", partner: "attacker", body: body), body: body)
            ids.append(r.id)
            try await h.send(h.verifyInput, key: "attacker", message: r)
        }
        let results = try await h.results(h.verifyOutput, for: ids)
        #expect(results.count == ids.count)
        #expect(results.values.allSatisfy { $0.first?["reason"] as? String == "bad_mac" })
        // 8 bad_mac events (under the per-partner limit) and one rate event; a second would come
        // with them, in the same lane.
        let all = try await h.read(h.security, timeout: .seconds(30)) { $0.count >= 9 }
        #expect(all.filter { $0["event"] as? String == "bad_mac" }.count == 8)
        let events = all.filter { $0["event"] as? String == "rejection_rate" }
        #expect(events.count == 1)
        #expect(events.first?["partner_id"] as? String == "attacker")
        #expect(events.first?["count"] as? Int == 6)
        #expect(events.first?["reason"] as? String == "bad_mac")
        for event in all { try SchemaCheck.validate(event, against: "hallmark.security.event.v1") }
        #expect(signer.process.isRunning)
    }

    /// Two replicas in one group share the load; a replay sent through each is caught by the
    /// shared table: exactly one copy is accepted.
    @Test func twoReplicasShareLoadAndCatchReplays() async throws {
        let h = try await SignerHarness(secrets: ["v1": "shared"], signing: "v1")
        defer { Task { await h.close() } }
        let a = try await h.startSigner("replica-a")
        let b = try await h.startSigner("replica-b")
        // The rebalance ends with each member holding some of the partitions.
        #expect(
            try await eventually(timeout: .seconds(60)) {
                !a.assignedPartitions.isEmpty && !b.assignedPartitions.isEmpty
            }, "the two replicas never shared the partitions")
        let timestamp = Timestamp.now().text
        var requests: [Message<VerifyRequest>] = []
        for i in 0..<40 {
            let body = Data(#"{"n":"\#(1000 + i)"}"#.utf8)
            requests.append(
                Fixtures.verify(
                    try Fixtures.signedHeaders(
                        secret: "shared", timestamp: timestamp, partner: "p\(i)", body: body), body: body))
        }
        let body = Data("replayed".utf8)
        let headers = try Fixtures.signedHeaders(secret: "shared", partner: "victim", body: body)
        let replays = (0..<8).map { _ in Fixtures.verify(headers, body: body) }
        for (i, r) in requests.enumerated() { try await h.send(h.verifyInput, key: "p\(i)", message: r) }
        // Different Kafka keys spread the copies over every partition, so over both replicas.
        for (i, r) in replays.enumerated() { try await h.send(h.verifyInput, key: "route-\(i)", message: r) }
        let results = try await h.results(h.verifyOutput, for: (requests + replays).map(\.id))
        #expect(requests.allSatisfy { results[$0.id]?.first?["verdict"] as? String == "accepted" })
        let replayVerdicts = replays.map { results[$0.id]?.first?["reason"] as? String ?? "accepted" }
        #expect(replayVerdicts.filter { $0 == "accepted" }.count == 1)
        #expect(replayVerdicts.filter { $0 == "replay" }.count == 7)
        let processed = try await processedByInstance(h, instances: ["replica-a", "replica-b"])
        #expect(processed["replica-a", default: 0] > 0 && processed["replica-b", default: 0] > 0, "\(processed)")
        #expect(processed.values.reduce(0, +) == 48)
        _ = (a, b)
    }

    /// The latest `hallmark_stage_processed_total` of each instance, from the metrics topic.
    func processedByInstance(_ h: SignerHarness, instances: Set<String>) async throws -> [String: Int] {
        var latest: [String: Int] = [:]
        _ = try await h.read(h.metricsTopic, timeout: .seconds(15)) { snapshots in
            guard let s = snapshots.last, let instance = s["instance"] as? String else { return false }
            let counters = s["counters"] as? [[String: Any]] ?? []
            // One counter per stage (sign, verify): their sum.
            let values = counters.filter { $0["name"] as? String == "hallmark_stage_processed_total" }
                .compactMap { $0["value"] as? Double }
            latest[instance] = Int(values.reduce(0, +))
            return instances.allSatisfy { latest[$0] != nil } && latest.values.reduce(0, +) >= 48
        }
        return latest
    }
}

extension SignerRobustnessTests {
    /// One replica killed with SIGKILL during a 2,000-message load and restarted: every
    /// request gets its verdict, and no verdict contradicts another.
    @Test func sigkillDuringLoadLosesNoVerdict() async throws {
        let h = try await SignerHarness(secrets: ["v1": "load"], signing: "v1")
        defer { Task { await h.close() } }
        let a = try await h.startSigner("load-a")
        var b = try await h.startSigner("load-b")
        #expect(
            try await eventually(timeout: .seconds(60)) {
                !a.assignedPartitions.isEmpty && !b.assignedPartitions.isEmpty
            }, "the two replicas never shared the partitions")
        // Few distinct timestamps (so few PBKDF2 keys to sign with here); every MAC differs.
        let timestamps = (0..<20).map { Timestamp.format(Date().addingTimeInterval(Double($0) / 10)) }
        let signer = MemoSigner(secret: "load")
        var requests: [Message<VerifyRequest>] = []
        for i in 0..<1_900 {
            let body = Data(#"{"n":"\#(10_000 + i)"}"#.utf8)
            requests.append(
                Fixtures.verify(
                    try signer.signedHeaders(
                        timestamp: timestamps[i % 20], partner: "p\(100 + i % 97)", body: body), body: body))
        }
        // 100 replays of earlier requests under new ids.
        for i in 0..<100 {
            requests.append(Fixtures.verify(requests[i * 7].headers, body: Data(base64Encoded: requests[i * 7].bodyB64)!))
        }
        requests.shuffle()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for r in requests {
                group.addTask { try await h.send(h.verifyInput, key: r.headers["SmileID-Partner-ID"], message: r) }
            }
            try await group.waitForAll()
        }
        // Killed mid-load: once some verdicts are out, and (checked below) before all are.
        _ = try await h.read(h.verifyOutput) { $0.count >= 200 }
        b.signal(SIGKILL)
        let killedAt = Date()
        #expect(await b.waitForExit(timeout: .seconds(10)) != nil)
        b = try await h.startSigner("load-b")
        let results = try await h.results(h.verifyOutput, for: requests.map(\.id), timeout: .seconds(240))
        #expect(results.count == requests.count)
        // Verdicts made after the kill prove it came mid-load (else the test proves nothing).
        let madeAfterKill = results.values.joined().filter { verdict in
            (verdict["produced_at"] as? String).flatMap(Timestamp.parse).map { $0 > killedAt } ?? false
        }
        #expect(!madeAfterKill.isEmpty, "the kill came after the load: it proves nothing")
        var acceptedPerMAC: [String: Int] = [:]
        for r in requests {
            let verdicts = Set((results[r.id] ?? []).map { ($0["reason"] as? String) ?? ($0["verdict"] as? String ?? "") })
            #expect(verdicts.count == 1, "\(r.id): \(verdicts)")
            if verdicts == ["accepted"] { acceptedPerMAC[r.headers["SmileID-Request-Mac"]!, default: 0] += 1 }
            #expect(verdicts.isSubset(of: ["accepted", "replay"]))
        }
        #expect(acceptedPerMAC.count == 1_900)
        #expect(acceptedPerMAC.values.allSatisfy { $0 == 1 })
        #expect(a.process.isRunning && b.process.isRunning)
    }
}
