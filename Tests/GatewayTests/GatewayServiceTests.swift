import Foundation
import GatewayCore
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// The gateway as its own process against the real broker: ENC-1 requests of every kind
/// encrypted and decrypted back byte for byte, the DESIGN vector, the policy's decisions
/// (with their metrics), and a chain through the signer into verify and back to plaintext.
@Suite("Gateway service against the real broker", .serialized, .timeLimit(.minutes(6)))
struct GatewayServiceTests {
    static func encryptRequest(
        _ body: Data, type: String, path: String = "/v1/upload",
        extra: [String: String] = [:]
    ) -> Message<EncryptRequest> {
        Message(
            EncryptRequest(
                headers: ["Content-Type": type, "SmileID-Partner-ID": "002"].merging(extra) { $1 },
                bodyB64: body.base64EncodedString(), method: "POST", path: path))
    }

    @Test func jsonZipAndMultipartComeBackByteExact() async throws {
        let h = try await GatewayHarness()
        let gateway = try await h.startGateway("roundtrip")
        let bodies: [(Data, String, EncryptResult.RequestType)] = [
            (Data(#"{"partner_params":{"job_id":"job-7"},"country":"KE"}"#.utf8), "application/json", .json),
            (GatewayFixtures.zip, "application/zip", .zip),
            (GatewayFixtures.multipart(), GatewayFixtures.multipartType, .multipart),
        ]
        let requests = bodies.map { Self.encryptRequest($0.0, type: $0.1) }
        for request in requests { try await h.send(h.encryptInput, key: "002", message: request) }
        for ((body, type, kind), request) in zip(bodies, requests) {
            let result = try await h.answer(EncryptResult.self, to: request.id, on: h.encryptOutput)
            #expect(result.decision == .encrypted(kind) && result.requestID == request.id)
            #expect(result.headers["SmileID-Request-ID"] == request.id.text.lowercased())
            #expect(result.method == "POST" && result.path == "/v1/upload")
            let sent = try #require(Data(base64Encoded: result.bodyB64))
            #expect(sent != body)
            if kind == .multipart {
                let parts = try MultipartBody(parsing: Array(sent), boundary: GatewayFixtures.boundary)
                #expect(parts.parts.compactMap(\.name).filter { $0.hasSuffix("_encrypted") }.count == 2)
            }
            let decrypt = Message(
                DecryptRequest(headers: result.headers, bodyB64: result.bodyB64, method: result.method, path: result.path))
            try await h.send(h.decryptInput, key: "002", message: decrypt)
            let back = try await h.answer(DecryptResult.self, to: decrypt.id, on: h.decryptOutput)
            #expect(back.status == .accepted && back.reason == nil)
            #expect(back.bodyB64.flatMap { Data(base64Encoded: $0) } == body, "\(kind) decrypts back byte for byte")
            #expect(back.headers?["Content-Type"] == type && back.headers?["SmileID-Content-Encrypted"] == nil)
            try h.validateAnswer(to: request.id, on: h.encryptOutput, against: EncryptResult.schemaName)
            try h.validateAnswer(to: decrypt.id, on: h.decryptOutput, against: DecryptResult.schemaName)
        }
        #expect(try await eventually { h.counter("hallmark_gateway_encrypted_total", ["type": "multipart"]) == 1 })
        gateway.signal(SIGTERM)
        #expect(await gateway.waitForExit(timeout: .seconds(30)) == 0)
        await h.close()
    }

    @Test func designVectorDecryptsThroughTheService() async throws {
        let h = try await GatewayHarness()
        // The vector's timestamp is in 2025: a window of a century lets it in.
        let gateway = try await h.startGateway("vector", ["HALLMARK_GATEWAY_WINDOW_SECONDS": "\(100 * 366 * 86_400)"])
        let envelope = SmileIDEnvelope(
            iv: "AAECAwQFBgcICQoL", authTag: "amVGVBanJvS7NoTlXi/QWA==",
            encryptedData: "+Wxvj0z8ivL82L4MIn34AZuZ", timestamp: "2025-01-01T00:00:00.000Z")
        let headers = [
            "SmileID-Encryption-Version": "1.0", "SmileID-Request-ID": "req-1",
            "SmileID-Content-Encrypted": "true", "Content-Type": "application/octet-stream",
        ]
        let request = Message(DecryptRequest(headers: headers, bodyB64: try envelope.jsonData().base64EncodedString()))
        try await h.send(h.decryptInput, message: request)
        let result = try await h.answer(DecryptResult.self, to: request.id, on: h.decryptOutput)
        #expect(result.status == .accepted)
        #expect(result.bodyB64 == Data(#"{"job_id":"job-1"}"#.utf8).base64EncodedString())
        // The same envelope under another request id fails authentication.
        var other = request
        other.header.id = MessageID.random()
        other.headers["SmileID-Request-ID"] = "req-2"
        try await h.send(h.decryptInput, message: other)
        let refused = try await h.answer(DecryptResult.self, to: other.id, on: h.decryptOutput)
        #expect(refused.status == .rejected && refused.reason == .authenticationFailed)
        #expect(refused.bodyB64 == nil && refused.headers == nil)
        try h.validateAnswer(to: other.id, on: h.decryptOutput, against: DecryptResult.schemaName)
        gateway.signal(SIGTERM)
        #expect(await gateway.waitForExit(timeout: .seconds(30)) == 0)
        await h.close()
    }

    @Test func skipHeaderExcludedPathAndPolicyOff() async throws {
        let h = try await GatewayHarness()
        let gateway = try await h.startGateway("policy", ["HALLMARK_GATEWAY_EXCLUDED_PATHS": "/v1/public/**"])
        let body = Data(#"{"job_id":"plain"}"#.utf8)
        let skipped = Self.encryptRequest(body, type: "application/json", extra: ["SmileID-Skip-Encryption": "true"])
        let excluded = Self.encryptRequest(body, type: "application/json", path: "/v1/public/status")
        let encrypted = Self.encryptRequest(body, type: "application/json", path: "/v1/private/status")
        for r in [skipped, excluded, encrypted] { try await h.send(h.encryptInput, message: r) }
        let a = try await h.answer(EncryptResult.self, to: skipped.id, on: h.encryptOutput)
        let b = try await h.answer(EncryptResult.self, to: excluded.id, on: h.encryptOutput)
        let c = try await h.answer(EncryptResult.self, to: encrypted.id, on: h.encryptOutput)
        #expect(a.decision == .passedThrough(.skipHeader) && a.bodyB64 == skipped.bodyB64 && a.headers == skipped.headers)
        #expect(b.decision == .passedThrough(.excludedPath) && b.bodyB64 == excluded.bodyB64)
        #expect(c.decision == .encrypted(.json))
        #expect(
            try await eventually {
                h.counter("hallmark_gateway_passed_through_total", ["reason": "skip_header"]) == 1
                    && h.counter("hallmark_gateway_passed_through_total", ["reason": "excluded_path"]) == 1
            })
        gateway.signal(SIGTERM)
        #expect(await gateway.waitForExit(timeout: .seconds(30)) == 0)

        let off = try await h.startGateway("off", ["HALLMARK_GATEWAY_ENCRYPTION": "false"])
        let plain = Self.encryptRequest(body, type: "application/json")
        try await h.send(h.encryptInput, message: plain)
        let d = try await h.answer(EncryptResult.self, to: plain.id, on: h.encryptOutput)
        #expect(d.decision == .passedThrough(.encryptionDisabled) && d.bodyB64 == plain.bodyB64 && !d.encrypted)
        try SchemaCheck.validate(
            JSONSerialization.jsonObject(with: Data(JSONCoding.encode(d))), against: EncryptResult.schemaName)
        off.signal(SIGTERM)
        #expect(await off.waitForExit(timeout: .seconds(30)) == 0)
        await h.close()
    }

    /// raw payload → gateway encrypt → signer sign → signer verify → gateway decrypt: the MAC
    /// covers the envelope bytes, verify accepts it, and the plaintext comes back.
    @Test func encryptResultsChainThroughTheSignerAndBack() async throws {
        let h = try await GatewayHarness()
        let gateway = try await h.startGateway(
            "chain",
            [
                "HALLMARK_GATEWAY_ENCRYPT_OUTPUT": h.signInput, "HALLMARK_GATEWAY_DECRYPT_INPUT": h.verifyOutput,
                "HALLMARK_GATEWAY_DECRYPT_SCHEMAS": "\(DecryptRequest.schemaName),\(VerifyResult.schemaName)",
            ])
        let signer = try await h.startSigner("chain")
        let bodies = [
            (Data(#"{"job_id":"chain"}"#.utf8), "application/json"),
            (GatewayFixtures.multipart(), GatewayFixtures.multipartType),
        ]
        let requests = bodies.map { Self.encryptRequest($0.0, type: $0.1) }
        for r in requests { try await h.send(h.encryptInput, key: "002", message: r) }
        for ((body, _), request) in zip(bodies, requests) {
            // Each hop keeps the first request's id as its correlation id.
            let verdict = try await h.answer(VerifyResult.self, to: request.id, on: h.verifyOutput)
            #expect(verdict.reason == nil && verdict.secretVersion == "v1", "\(verdict)")
            #expect(verdict.headers["SmileID-Content-Encrypted"] == "true" && verdict.headers["SmileID-Request-Mac"] != nil)
            let plain = try await h.answer(DecryptResult.self, to: request.id, on: h.decryptOutput)
            #expect(plain.status == .accepted && plain.bodyB64.flatMap { Data(base64Encoded: $0) } == body)
        }
        for process in [gateway, signer] {
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: .seconds(30)) == 0)
        }
        await h.close()
    }

    /// The same chain, with requests it must refuse (DESIGN §2): a multipart body the gateway
    /// cannot split is answered at every hop — encrypt `malformed_multipart`, then sign, verify
    /// and decrypt `upstream_rejected` naming that first cause — with nothing half-encrypted
    /// chained on and no rejected record after the first; and a request whose MAC fails
    /// verification is answered `bad_mac` and never decrypted.
    @Test func refusalsFlowDownTheChainAndABadMACIsNeverDecrypted() async throws {
        let h = try await GatewayHarness()
        let gateway = try await h.startGateway(
            "refusals",
            [
                "HALLMARK_GATEWAY_ENCRYPT_OUTPUT": h.signInput, "HALLMARK_GATEWAY_DECRYPT_INPUT": h.verifyOutput,
                "HALLMARK_GATEWAY_DECRYPT_SCHEMAS": "\(DecryptRequest.schemaName),\(VerifyResult.schemaName)",
            ])
        let signer = try await h.startSigner("refusals")
        // The hops between: encrypt results on the sign input, sign results on the verify input.
        let hops = try AnswerWatcher(
            kafka: h.kafka, topics: [h.signInput, h.topic("verify.in")], fromStart: true,
            logger: h.logger)
        let hopReader = Task { await hops.run() }
        defer { hopReader.cancel() }
        let broken = Self.encryptRequest(GatewayFixtures.multipart().prefix(40), type: GatewayFixtures.multipartType)
        try await h.send(h.encryptInput, key: "002", message: broken)
        // An ENC-1 request with a forged MAC, straight to the verify stage.
        let (body, sealed) = try SmileIDEncryption.encryptBody(
            Data("forged".utf8), secret: "test-secret",
            timestamp: Timestamp.now().text, requestId: "forged-1")
        let headers = sealed.merging([
            "SmileID-Partner-ID": "002", "SmileID-Request-Timestamp": Timestamp.now().text,
            "SmileID-Request-Mac": Data(count: 32).base64EncodedString(),
        ]) { $1 }
        let forged = Message(
            VerifyRequest(method: "POST", path: "/v1/upload", headers: headers, bodyB64: body.base64EncodedString()))
        try await h.send(h.topic("verify.in"), key: "002", message: forged)

        let encrypt = try #require(await hops.answer(for: broken.id, on: h.signInput, timeout: .seconds(90)))
        let sign = try #require(await hops.answer(for: broken.id, on: h.topic("verify.in"), timeout: .seconds(90)))
        let verdict = try await h.answer(VerifyResult.self, to: broken.id, on: h.verifyOutput)
        let plain = try await h.answer(DecryptResult.self, to: broken.id, on: h.decryptOutput)
        let e = try JSONCoding.decode(Message<CarrierRejection<EncryptResult>>.self, from: encrypt)
        #expect(e.status == "rejected" && e.reason == .malformedMultipart && e.upstreamReason == nil)
        let s = try JSONCoding.decode(Message<CarrierRejection<SignResult>>.self, from: sign)
        #expect(s.reason == .upstreamRejected && s.upstreamReason == "malformed_multipart")
        #expect(verdict.reason == VerifyReason.upstreamRejected.rawValue && verdict.upstreamReason == "malformed_multipart")
        #expect(verdict.headers.isEmpty && verdict.bodyB64.isEmpty)
        #expect(plain.reason == .upstreamRejected && plain.upstreamReason == "malformed_multipart" && plain.bodyB64 == nil)
        for (bytes, schema) in [(encrypt, EncryptResult.schemaName), (sign, SignResult.schemaName)] {
            try SchemaCheck.validate(JSONSerialization.jsonObject(with: Data(bytes)), against: schema)
        }
        try h.validateAnswer(to: broken.id, on: h.verifyOutput, against: VerifyResult.schemaName)
        try h.validateAnswer(to: broken.id, on: h.decryptOutput, against: DecryptResult.schemaName)
        await hops.close()

        let badMAC = try await h.answer(VerifyResult.self, to: forged.id, on: h.verifyOutput)
        #expect(badMAC.reason == VerifyReason.badMAC.rawValue)
        let refused = try await h.answer(DecryptResult.self, to: forged.id, on: h.decryptOutput)
        #expect(refused.status == .rejected && refused.reason == .upstreamRejected && refused.upstreamReason == "bad_mac")
        #expect(refused.bodyB64 == nil && refused.headers == nil)
        // One rejected record, the gateway's for the broken body: the later hops answered.
        #expect(try await eventually { h.rejections()[broken.id.text]?.count == 1 })
        #expect(h.rejections().count == 1, "\(h.rejections().keys)")
        for process in [gateway, signer] {
            process.signal(SIGTERM)
            #expect(await process.waitForExit(timeout: .seconds(30)) == 0)
        }
        await h.close()
    }
}
