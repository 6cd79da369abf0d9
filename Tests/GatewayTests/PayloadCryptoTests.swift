import Foundation
import GatewayCore
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkRuntime
import HallmarkSmileID
import Testing

/// ENC-1 through the gateway's encryptor and decryptor (PBKDF2 on a real worker pool): the
/// DESIGN vector, byte-exact round trips of the three request types, and every typed rejection.
@Suite("Gateway payload crypto", .serialized, .timeLimit(.minutes(3)))
struct PayloadCryptoTests {
    let deriver: KeyDeriver
    let pool: PBKDF2WorkerPool
    let secrets: SecretSet
    let now = Date()

    init() throws {
        (deriver, pool) = GatewayFixtures.deriver()
        secrets = try GatewayFixtures.secrets()
    }

    var encryptor: PayloadEncryptor { PayloadEncryptor(deriver: deriver, policy: EncryptionPolicy()) }
    var decryptor: PayloadDecryptor { PayloadDecryptor(deriver: deriver, window: 300) }
    var stamp: String { Timestamp.format(now) }

    /// DESIGN ENC-1 vector: secret `test-secret`, requestId `req-1`, fixed IV.
    @Test func designVector() async throws {
        let output = try await encryptor.encrypt(
            path: "/v1/id_verification", headers: ["Content-Type": "application/json", "SmileID-Request-ID": "req-1"],
            body: Data(#"{"job_id":"job-1"}"#.utf8), requestID: "unused", timestamp: "2025-01-01T00:00:00.000Z",
            secrets: secrets, now: now, iv: try Hex.decode("000102030405060708090a0b"))
        #expect(output.decision == .encrypted(.json))
        let envelope = try SmileIDEnvelope.parse(output.body)
        #expect(envelope.authTag == "amVGVBanJvS7NoTlXi/QWA==")
        #expect(envelope.encryptedData == "+Wxvj0z8ivL82L4MIn34AZuZ")
        #expect(try envelope.iv == Hex.decode("000102030405060708090a0b").base64EncodedString())
        #expect(output.headers["SmileID-Encryption-Version"] == "1.0" && output.headers["SmileID-Request-ID"] == "req-1")
        #expect(output.headers["SmileID-Content-Encrypted"] == "true")
        #expect(output.headers["Content-Type"] == "application/octet-stream")
        #expect(output.headers["SmileID-Request-Timestamp"] == "2025-01-01T00:00:00.000Z")
        // The vector's envelope decrypts with a window wide enough for its 2025 timestamp.
        let wide = PayloadDecryptor(deriver: deriver, window: 100 * 366 * 86_400)
        let back = try await wide.decrypt(headers: output.headers, body: output.body, secrets: secrets, now: now)
        #expect(
            back
                == .decrypted(
                    headers: [
                        "Content-Type": "application/json",
                        "SmileID-Request-Timestamp": "2025-01-01T00:00:00.000Z",
                    ],
                    body: Data(#"{"job_id":"job-1"}"#.utf8)))
    }

    @Test func jsonZipAndMultipartRoundTripByteExact() async throws {
        let cases: [(String, Data, EncryptResult.RequestType)] = [
            ("application/json", Data(#"{"partner_params":{"job_id":"j"},"images":[]}"#.utf8), .json),
            ("application/zip", GatewayFixtures.zip, .zip),
            (GatewayFixtures.multipartType, GatewayFixtures.multipart(), .multipart),
        ]
        for (type, body, kind) in cases {
            let headers = ["Content-Type": type, "SmileID-Partner-ID": "002", "Content-Length": "\(body.count)"]
            let output = try await encryptor.encrypt(
                path: "/v1/upload", headers: headers, body: body, requestID: "r-\(kind)",
                timestamp: nil, secrets: secrets, now: now)
            #expect(output.decision == .encrypted(kind))
            #expect(output.headers["SmileID-Request-ID"] == "r-\(kind)")
            #expect(output.headers["Content-Length"] == "\(output.body.count)")
            #expect(output.body != body)
            let back = try await decryptor.decrypt(headers: output.headers, body: output.body, secrets: secrets, now: now)
            guard case .decrypted(let plainHeaders, let plain) = back else { Issue.record("\(kind): \(back)"); continue }
            if kind == .multipart {
                // The images and the plain field are copied as they were; the two fields come back.
                let original = try MultipartBody(parsing: Array(body), boundary: GatewayFixtures.boundary)
                let sent = try MultipartBody(parsing: Array(output.body), boundary: GatewayFixtures.boundary)
                #expect(
                    sent.parts.map(\.name) == [
                        "selfie_image", "partner_params_encrypted", "metadata_encrypted",
                        "liveness_images", "user_id",
                    ])
                #expect(sent.parts[0] == original.parts[0] && sent.parts[3] == original.parts[3])
                #expect(!String(decoding: output.body, as: UTF8.self).contains("user_id\":\"user-1"))
                #expect(plain == body, "the multipart body decrypts back byte for byte")
            } else {
                #expect(plain == body)
            }
            #expect(plainHeaders["Content-Type"] == type && plainHeaders["SmileID-Partner-ID"] == "002")
            #expect(plainHeaders["SmileID-Request-ID"] == nil && plainHeaders["SmileID-Content-Encrypted"] == nil)
        }
    }

    @Test func policyPassesRequestsThroughSayingWhy() async throws {
        var policy = EncryptionPolicy()
        policy.excludedPaths = [PathPattern("/v1/public/**")!]
        let e = PayloadEncryptor(deriver: deriver, policy: policy)
        let json = ["Content-Type": "application/json"]
        let body = Data("{}".utf8)
        func decision(
            _ path: String, _ headers: [String: String], _ b: Data = Data("{}".utf8),
            _ enc: PayloadEncryptor? = nil
        ) async throws -> EncryptResult.Decision {
            let out = try await (enc ?? e).encrypt(
                path: path, headers: headers, body: b, requestID: "r", timestamp: nil,
                secrets: secrets, now: now)
            if case .passedThrough = out.decision { #expect(out.body == b && out.headers == headers) }
            return out.decision
        }
        #expect(try await decision("/v1/public/a/b", json) == .passedThrough(.excludedPath))
        #expect(
            try await decision("/v1/jobs", json.merging(["SmileID-Skip-Encryption": "true"]) { $1 })
                == .passedThrough(.skipHeader))
        #expect(try await decision("/v1/jobs", ["Content-Type": "text/plain"]) == .passedThrough(.unsupportedContentType))
        #expect(
            try await decision("/v1/jobs", ["Content-Type": "application/zip", "Host": "b.s3.amazonaws.com"])
                == .passedThrough(.s3Upload))
        let noFields = GatewayFixtures.multipart(partnerParams: "{}", metadata: nil)
        var stripped = try MultipartBody(parsing: Array(noFields), boundary: GatewayFixtures.boundary)
        stripped.parts.removeAll { $0.name == "partner_params" }
        #expect(
            try await decision("/v1/jobs", ["Content-Type": GatewayFixtures.multipartType], Data(stripped.bytes))
                == .passedThrough(.noFieldsToEncrypt))
        var off = EncryptionPolicy()
        off.multipartMetadata = false
        #expect(
            try await decision(
                "/v1/jobs", ["Content-Type": GatewayFixtures.multipartType], GatewayFixtures.multipart(),
                PayloadEncryptor(deriver: deriver, policy: off)) == .passedThrough(.multipartMetadataDisabled))
        off.encryption = false
        #expect(
            try await decision("/v1/jobs", json, body, PayloadEncryptor(deriver: deriver, policy: off))
                == .passedThrough(.encryptionDisabled))
    }

    @Test func badEncryptRequestsAreRejected() async throws {
        await #expect(throws: StageRejection.self) {
            try await encryptor.encrypt(
                path: nil, headers: ["Content-Type": GatewayFixtures.multipartType],
                body: Data("not multipart".utf8), requestID: "r", timestamp: nil,
                secrets: secrets, now: now)
        }
        let twice = GatewayFixtures.multipart(partnerParams: "{}", metadata: "{}")
        var doubled = try MultipartBody(parsing: Array(twice), boundary: GatewayFixtures.boundary)
        doubled.parts.append(.init(field: "metadata", contentType: "application/json", body: Array("{}".utf8)))
        let error = await #expect(throws: StageRejection.self) {
            try await encryptor.encrypt(
                path: nil, headers: ["Content-Type": GatewayFixtures.multipartType],
                body: Data(doubled.bytes), requestID: "r", timestamp: nil, secrets: secrets, now: now)
        }
        #expect(error?.reason == GatewayRejection.malformedMultipart)
        // Fuzz finding (enc1): a field to encrypt beside an `…_encrypted` one the caller sent
        // made a result no decryptor opens; either sealed field is refused, whichever field is plain.
        for (plain, sealed) in [
            ("metadata", "partner_params_encrypted"), ("partner_params", "partner_params_encrypted"),
            ("partner_params", "metadata_encrypted"),
        ] {
            var mixed = try MultipartBody(parsing: Array(twice), boundary: GatewayFixtures.boundary)
            mixed.parts.removeAll { SmileIDEncryption.multipartFields.contains($0.name ?? "") && $0.name != plain }
            mixed.parts.append(.init(field: sealed, contentType: "application/octet-stream", body: Array("e30=".utf8)))
            let mixedError = await #expect(throws: StageRejection.self) {
                try await encryptor.encrypt(
                    path: nil, headers: ["Content-Type": GatewayFixtures.multipartType],
                    body: Data(mixed.bytes), requestID: "r", timestamp: nil, secrets: secrets, now: now)
            }
            #expect(mixedError?.reason == GatewayRejection.malformedMultipart, "\(plain) beside \(sealed)")
        }
        await #expect(throws: StageRejection.self) {
            try await encryptor.encrypt(
                path: nil, headers: ["Content-Type": "application/json", "content-type": "x"],
                body: Data(), requestID: "r", timestamp: nil, secrets: secrets, now: now)
        }
        await #expect(throws: StageRejection.self) {
            try await encryptor.encrypt(
                path: nil, headers: ["Content-Type": "application/json"], body: Data(),
                requestID: "r", timestamp: "yesterday", secrets: secrets, now: now)
        }
    }

    @Test func decryptRejectionsAreTypedAndHoldNoPlaintext() async throws {
        let out = try await encryptor.encrypt(
            path: nil, headers: ["Content-Type": "application/json"],
            body: Data(#"{"secret":"x"}"#.utf8), requestID: "r1", timestamp: nil,
            secrets: secrets, now: now)
        var envelope = try SmileIDEnvelope.parse(out.body)
        func check(
            _ headers: [String: String], _ body: Data, _ reason: DecryptResult.Reason,
            secrets s: SecretSet? = nil, sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let outcome = try await decryptor.decrypt(headers: headers, body: body, secrets: s ?? secrets, now: now)
            #expect(outcome == .rejected(reason), sourceLocation: sourceLocation)
        }
        for name in GatewayHeaders.added {
            var h = out.headers
            h[name] = nil
            try await check(h, out.body, .missingHeader)
        }
        try await check(out.headers.merging(["SmileID-Encryption-Version": "2.0"]) { $1 }, out.body, .unsupportedVersion)
        try await check(out.headers, Data("{\"version\":\"1.0\"".utf8), .malformedEnvelope)
        try await check(out.headers, Data("[]".utf8), .malformedEnvelope)
        var other = envelope
        other.version = "1.1"
        try await check(out.headers, try other.jsonData(), .unsupportedVersion)
        other = envelope
        other.iv = "AAAA"
        try await check(out.headers, try other.jsonData(), .malformedEnvelope)
        other = envelope
        other.timestamp = Timestamp.format(now.addingTimeInterval(-301))
        try await check(out.headers, try other.jsonData(), .staleTimestamp)
        other.timestamp = Timestamp.format(now.addingTimeInterval(301))
        try await check(out.headers, try other.jsonData(), .staleTimestamp)
        // A flipped tag bit, another request id, another secret: authentication fails.
        var tag = try Base64.decode(envelope.authTag)
        tag[0] ^= 1
        envelope.authTag = tag.base64EncodedString()
        try await check(out.headers, try envelope.jsonData(), .authenticationFailed)
        try await check(out.headers.merging(["SmileID-Request-ID": "r2"]) { $1 }, out.body, .authenticationFailed)
        try await check(
            out.headers, out.body, .authenticationFailed, secrets: try GatewayFixtures.secrets(["v9": "other"], signing: "v9"))
        // A multipart body with one tampered field is refused whole: no partial plaintext.
        let mp = try await encryptor.encrypt(
            path: nil, headers: ["Content-Type": GatewayFixtures.multipartType],
            body: GatewayFixtures.multipart(), requestID: "m", timestamp: nil,
            secrets: secrets, now: now)
        var parts = try MultipartBody(parsing: Array(mp.body), boundary: GatewayFixtures.boundary)
        let index = try #require(parts.parts.firstIndex { $0.name == "metadata_encrypted" })
        var sealed = try SmileIDEnvelope.parse(Base64.decode(String(decoding: parts.parts[index].body, as: UTF8.self)))
        var data = try Base64.decode(sealed.encryptedData)
        data[0] ^= 0x80
        sealed.encryptedData = data.base64EncodedString()
        parts.parts[index].body = Array(try sealed.jsonData().base64EncodedString().utf8)
        try await check(mp.headers, Data(parts.bytes), .authenticationFailed)
        parts.parts[index].body = Array("not base64!".utf8)
        try await check(mp.headers, Data(parts.bytes), .malformedEnvelope)
    }

    /// Issue 30 §7: ENC-1 writes `SmileID-Content-Encrypted: true`, and only that value says a
    /// body is encrypted (as the version header is compared exactly); `TRUE` is `missing_header`.
    @Test func contentEncryptedMustBeExactlyTrue() async throws {
        let out = try await encryptor.encrypt(
            path: nil, headers: ["Content-Type": "application/json"],
            body: Data(#"{"a":1}"#.utf8), requestID: "r-true", timestamp: nil,
            secrets: secrets, now: now)
        for value in ["TRUE", "True", " true", "true ", "1", "yes"] {
            let outcome = try await decryptor.decrypt(
                headers: out.headers.merging(["SmileID-Content-Encrypted": value]) { $1 },
                body: out.body, secrets: secrets, now: now)
            #expect(outcome == .rejected(.missingHeader), "\(value)")
        }
        // The header's name is matched without regard to case, its value exactly.
        var headers = out.headers
        headers["SmileID-Content-Encrypted"] = nil
        headers["smileid-content-encrypted"] = "true"
        let back = try await decryptor.decrypt(headers: headers, body: out.body, secrets: secrets, now: now)
        #expect(
            back
                == .decrypted(
                    headers: [
                        "Content-Type": "application/json",
                        "SmileID-Request-Timestamp": out.headers["SmileID-Request-Timestamp"]!,
                    ],
                    body: Data(#"{"a":1}"#.utf8)))
    }

    /// Issue 30 §4b, as docs/gateway.md says: a restored field's headers are rewritten to
    /// exactly `Content-Disposition: form-data; name="<field>"` and `Content-Type:
    /// application/json` (its `filename`, charset, other headers, or a missing Content-Type are
    /// not kept: the envelope holds the field's body only). Its body, every other part, the
    /// preamble and the epilogue come back byte for byte.
    @Test func restoredMultipartFieldsGetCanonicalHeaders() async throws {
        let b = GatewayFixtures.boundary
        let original: [(headers: String, body: String)] = [
            (
                "Content-Disposition: form-data; name=\"partner_params\"; filename=\"p.json\"\r\nContent-Type: application/json; charset=utf-8",
                #"{"job_id":"j"}"#
            ),
            (
                "Content-Disposition: form-data; name=\"selfie\"; filename=\"a;name=metadata;.jpg\"\r\nContent-Type: image/jpeg",
                "JPEG"
            ),
            ("content-disposition: form-data; name=metadata\r\nX-Extra: kept?", #"[{"name":"sdk"}]"#),
        ]
        let body = "pre\r\n" + original.map { "--\(b)\r\n\($0.headers)\r\n\r\n\($0.body)\r\n" }.joined() + "--\(b)--\r\nepi"
        let headers = ["Content-Type": GatewayFixtures.multipartType]
        let out = try await encryptor.encrypt(
            path: nil, headers: headers, body: Data(body.utf8), requestID: "mp-headers",
            timestamp: nil, secrets: secrets, now: now)
        #expect(out.decision == .encrypted(.multipart))
        let back = try await decryptor.decrypt(headers: out.headers, body: out.body, secrets: secrets, now: now)
        guard case .decrypted(_, let plain) = back else { Issue.record("\(back)"); return }
        let canonical = { (field: String) in "Content-Disposition: form-data; name=\"\(field)\"\r\nContent-Type: application/json"
        }
        let expected =
            "pre\r\n"
            + "--\(b)\r\n\(canonical("partner_params"))\r\n\r\n\(original[0].body)\r\n"
            + "--\(b)\r\n\(original[1].headers)\r\n\r\n\(original[1].body)\r\n"
            + "--\(b)\r\n\(canonical("metadata"))\r\n\r\n\(original[2].body)\r\n"
            + "--\(b)--\r\nepi"
        #expect(String(decoding: plain, as: UTF8.self) == expected)
    }

    @Test func anOlderSecretVersionStillDecrypts() async throws {
        let old = try GatewayFixtures.secrets(["v1": "old-secret"], signing: "v1")
        let out = try await encryptor.encrypt(
            path: nil, headers: ["Content-Type": "application/json"], body: Data("{}".utf8),
            requestID: "rot", timestamp: nil, secrets: old, now: now)
        let rotated = try GatewayFixtures.secrets(["v1": "old-secret", "v2": "new-secret"], signing: "v2")
        let back = try await decryptor.decrypt(headers: out.headers, body: out.body, secrets: rotated, now: now)
        #expect(
            back
                == .decrypted(
                    headers: [
                        "Content-Type": "application/json",
                        "SmileID-Request-Timestamp": out.headers["SmileID-Request-Timestamp"]!,
                    ],
                    body: Data("{}".utf8)))
    }
}
