import HallmarkTestSupport
import Foundation
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import SignerCore
import Testing

/// `hallmark-signer` as its own process against the real broker and PostgreSQL.
@Suite("Signer service", .serialized, .timeLimit(.minutes(5)))
struct SignerServiceTests {
    /// Vectors A, B (sign and verify) and D (zip verify) as messages. Their timestamp is in
    /// 2025, so this signer runs with a window wide enough to reach it.
    @Test func designVectorsAsMessages() async throws {
        let h = try await SignerHarness(secrets: ["v1": "test-secret"], signing: "v1")
        defer { Task { await h.close() } }
        let signer = try await h.startSigner("vectors", ["HALLMARK_SIGNER_WINDOW_SECONDS": "\(20 * 365 * 86_400)"])
        var signIDs: [MessageID] = []
        for body in [Fixtures.vectorABody, Data()] {
            let id = MessageID.random()
            signIDs.append(id)
            try await h.send(
                h.signInput, key: "002",
                message: Message(
                    SignRequest(headers: Fixtures.vectorHeaders, bodyB64: body.base64EncodedString()), id: id))
        }
        var a = Fixtures.vectorHeaders
        a["SmileID-Request-Mac"] = Fixtures.vectorAMAC
        var b = Fixtures.vectorHeaders
        b["SmileID-Request-Mac"] = Fixtures.vectorBMAC
        let zip = try Fixtures.vectorDZip(
            infoJSON: #"{"timestamp":"\#(Fixtures.vectorTimestamp)","mac":"\#(Fixtures.vectorDMAC)"}"#)
        let requests = [
            Fixtures.verify(a, body: Fixtures.vectorABody), Fixtures.verify(b, body: Data()),
            Fixtures.verify(["SmileID-Partner-ID": "002", "Content-Type": "application/zip"], body: zip),
        ]
        for r in requests {
            try SchemaCheck.validate(
                try JSONSerialization.jsonObject(with: Data(JSONCoding.encode(r))),
                against: VerifyRequest.schemaName)
            try await h.send(h.verifyInput, key: "002", message: r)
        }
        let signed = try await h.results(h.signOutput, for: signIDs)
        let macs = signIDs.map { (signed[$0]?.first?["headers"] as? [String: String])?["SmileID-Request-Mac"] }
        #expect(macs == [Fixtures.vectorAMAC, Fixtures.vectorBMAC])
        for result in signed.values.flatMap({ $0 }) { try SchemaCheck.validate(result, against: SignResult.schemaName) }
        let verified = try await h.results(h.verifyOutput, for: requests.map(\.id))
        for r in requests {
            let result = try #require(verified[r.id]?.first)
            #expect(result["verdict"] as? String == "accepted", "\(result)")
            #expect(result["secret_version"] as? String == "v1")
            try SchemaCheck.validate(result, against: VerifyResult.schemaName)
        }
        #expect(!signer.rawLog.contains("test-secret"))
    }

    /// Every message the signer produces is a CloudEvent the SDK reads as its payload says
    /// (``CloudEventsCheck``): results, verdicts, rejected records, security events, metrics.
    @Test func everyOutputIsACloudEvent() async throws {
        let h = try await SignerHarness(secrets: ["v1": "s3cret-ce"], signing: "v1")
        defer { Task { await h.close() } }
        let signer = try await h.startSigner("cloudevents")
        defer { signer.signal(SIGKILL) }
        let body = Data(#"{"job_id":"job-ce"}"#.utf8)
        let sign = Message(SignRequest(headers: ["SmileID-Partner-ID": "002"], bodyB64: body.base64EncodedString()))
        try await h.send(h.signInput, key: "002", message: sign)
        var tampered = try Fixtures.signedHeaders(secret: "s3cret-ce", body: body)
        tampered["SmileID-Request-Mac"] = Fixtures.vectorAMAC
        let verifies = [
            Fixtures.verify(try Fixtures.signedHeaders(secret: "s3cret-ce", body: body), body: body),
            Fixtures.verify(tampered, body: body),
        ]
        for r in verifies { try await h.send(h.verifyInput, key: "002", message: r) }
        try await h.send(h.signInput, key: "002", Array("{not json".utf8))
        _ = try await h.results(h.signOutput, for: [sign.id])
        _ = try await h.results(h.verifyOutput, for: verifies.map(\.id))
        _ = try await h.read(h.rejected) { !$0.isEmpty }
        _ = try await h.read(h.metricsTopic) { !$0.isEmpty }
        let required = [h.signOutput, h.verifyOutput, h.rejected, h.metricsTopic]
        let check = try await CloudEventsCheck.run(brokers: h.kafka.brokers, required: required, others: [h.security])
        #expect(check.passed, "\(check.output)")
    }

    /// One verdict per request for every rejection reason, replays and redeliveries.
    @Test func verdictsForTamperedStaleReplayedAndRedeliveredRequests() async throws {
        let h = try await SignerHarness(secrets: ["v1": "s3cret-one"], signing: "v1")
        defer { Task { await h.close() } }
        let signer = try await h.startSigner("verdicts")
        let body = Data(#"{"job_id":"job-9","user_id":"user-9"}"#.utf8)
        let good = try Fixtures.signedHeaders(secret: "s3cret-one", body: body)
        var tamperedHeader = good
        tamperedHeader["SmileID-Source-SDK"] = "android"
        var removedHeader = good
        removedHeader["SmileID-Source-SDK"] = nil
        var removedMAC = good
        removedMAC["SmileID-Request-Mac"] = nil
        let iosCanonical = Data(#"{"a":"x/y","b":1}"#.utf8)
        let cases: [(String, Message<VerifyRequest>)] = [
            ("accepted", Fixtures.verify(good, body: body)),
            ("bad_mac", Fixtures.verify(try Fixtures.signedHeaders(secret: "wrong", body: body), body: body)),
            ("bad_mac", Fixtures.verify(good, body: Data(#"{"job_id":"job-X","user_id":"user-9"}"#.utf8))),
            ("bad_mac", Fixtures.verify(tamperedHeader, body: body)),
            ("bad_mac", Fixtures.verify(removedHeader, body: body)),
            ("missing_header", Fixtures.verify(removedMAC, body: body)),
            (
                "stale_timestamp",
                Fixtures.verify(
                    try Fixtures.signedHeaders(
                        secret: "s3cret-one", timestamp: Timestamp.format(Date().addingTimeInterval(-400)), body: body),
                    body: body)
            ),
            (
                "future_timestamp",
                Fixtures.verify(
                    try Fixtures.signedHeaders(
                        secret: "s3cret-one", timestamp: Timestamp.format(Date().addingTimeInterval(400)), body: body), body: body
                )
            ),
            (
                "accepted",
                Fixtures.verify(
                    try Fixtures.signedHeaders(secret: "s3cret-one", partner: "ios", body: iosCanonical),
                    body: Data(#"{"b":1,"a":"x\/y"}"#.utf8))
            ),
        ]
        for (_, r) in cases { try await h.send(h.verifyInput, key: r.headers["SmileID-Partner-ID"], message: r) }
        let first = try await h.results(h.verifyOutput, for: cases.map(\.1.id))
        for (expected, r) in cases {
            let verdict = first[r.id]?.first.map { ($0["reason"] as? String) ?? ($0["verdict"] as? String ?? "") }
            #expect(verdict == expected, "\(expected): \(String(describing: first[r.id]))")
        }
        // The same request under a new message id is a replay; the same message id again is a
        // redelivery, answered by the inbox and never verified again: its verdict stays
        // "accepted" (verified again, it would be a replay). While the outbox still holds the
        // first answer, the inbox sends that same answer again (the same result id).
        let replay = Fixtures.verify(good, body: body)
        try await h.send(h.verifyInput, key: "partner-1", message: replay)
        try await h.send(h.verifyInput, key: "partner-1", message: cases[0].1)
        let marker = Fixtures.verify(removedMAC, body: body)
        try await h.send(h.verifyInput, key: "partner-1", message: marker)
        let after = try await h.results(h.verifyOutput, for: [replay.id, marker.id, cases[0].1.id])
        #expect(after[replay.id]?.first?["reason"] as? String == "replay")
        let redelivered = after[cases[0].1.id] ?? []
        #expect(!redelivered.isEmpty && redelivered.allSatisfy { $0["verdict"] as? String == "accepted" }, "\(redelivered)")
        #expect(Set(redelivered.map { $0["id"] as? String ?? "" }).count == 1, "a redelivery got a new result: \(redelivered)")
        for result in (first.values.flatMap { $0 } + after.values.flatMap { $0 }) {
            try SchemaCheck.validate(result, against: VerifyResult.schemaName)
        }
        let rows = try await h.pool.query("SELECT count(*)::bigint FROM \(unescaped: h.schema).replay")
        #expect(try rows[0].decode(Int64.self) == 2)
        #expect(!signer.rawLog.contains("s3cret-one"))
    }

    /// Sign with v2 once it is the signing version; v1 still verifies until it is retired.
    @Test func rotationOnSIGHUP() async throws {
        let h = try await SignerHarness(secrets: ["v1": "first-secret"], signing: "v1")
        defer { Task { await h.close() } }
        let signer = try await h.startSigner("rotation")
        let body = Data("rotation".utf8)
        func signOnce() async throws -> String? {
            let id = MessageID.random()
            try await h.send(
                h.signInput, key: "p",
                message: Message(
                    SignRequest(headers: ["SmileID-Partner-ID": "p"], bodyB64: body.base64EncodedString()), id: id))
            return try await h.results(h.signOutput, for: [id])[id]?.first?["secret_version"] as? String
        }
        func verifyOnce(_ secret: String) async throws -> String? {
            let r = Fixtures.verify(try Fixtures.signedHeaders(secret: secret, partner: "p", body: body), body: body)
            try await h.send(h.verifyInput, key: "p", message: r)
            let answered = try await h.results(h.verifyOutput, for: [r.id])
            let result = answered[r.id]?.first
            return (result?["secret_version"] as? String) ?? (result?["reason"] as? String)
        }
        #expect(try await signOnce() == "v1")
        try h.writeSecrets(["v1": "first-secret", "v2": "second-secret"], signing: "v2")
        signer.signal(SIGHUP)
        try await signer.waitForLog("secrets reloaded")
        #expect(try await signOnce() == "v2")
        #expect(try await verifyOnce("first-secret") == "v1")
        #expect(try await verifyOnce("second-secret") == "v2")
        try h.writeSecrets(["v2": "second-secret"], signing: "v2")
        signer.signal(SIGHUP)
        try await signer.waitForLog("secrets reloaded", count: 2)
        #expect(try await verifyOnce("first-secret") == "bad_mac")
        #expect(signer.process.isRunning)
        for secret in ["first-secret", "second-secret"] { #expect(!signer.rawLog.contains(secret)) }
        // Each version change is in the audit trail, by version id only, and the chain checks.
        let expected = ["v1 key_added", "v1 current_key_changed", "v2 key_added", "v2 current_key_changed", "v1 key_removed"]
        var trail: [String] = []
        let recorded = try await eventually {
            let rows = try await h.pool.query(
                """
                SELECT record FROM \(unescaped: h.schema).hallmark_audit ORDER BY sequence
                """
            ).decode(Data.self)
            let records = try rows.map { try JSONCoding.decode(Message<AuditRecord>.self, from: Array($0)).body }
            #expect(records.allSatisfy { $0.action == .signingSecretRotation && $0.actor == .service })
            trail = records.map { "\($0.keyID ?? "") \($0.reason ?? "")" }
            return trail.count >= expected.count
        }
        #expect(recorded && trail == expected)
        let audit = try await h.pool.query("SELECT record FROM \(unescaped: h.schema).hallmark_audit").decode(Data.self)
        for row in audit {
            for secret in ["first-secret", "second-secret"] { #expect(!String(decoding: row, as: UTF8.self).contains(secret)) }
        }
        #expect(try await AuditChainCheck.run(schema: h.schema, pool: h.pool).problem == nil)
    }
}
