import Foundation
import GatewayCore
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// More than 200 bad inputs against one running gateway: each gets exactly one typed answer
/// (a `rejected` decrypt result with its reason, or a rejected record with its reason code),
/// and the gateway still answers a good request afterwards.
@Suite("Gateway hostile input", .serialized, .timeLimit(.minutes(6)))
struct GatewayHostileInputTests {
    enum Expected: Equatable {
        case decrypt(DecryptResult.Reason)
        case rejected(String)
        case encrypted
    }

    struct Case {
        var id = MessageID.random()
        var topic: String
        var value: [UInt8]
        var expected: Expected
    }

    static let secret = "test-secret"

    /// A valid encrypted request, made in-process with the gateway's secret.
    static func sealed(
        _ plaintext: Data = Data(#"{"job_id":"hostile"}"#.utf8),
        requestID: String = "hostile-1"
    ) throws -> (headers: [String: String], envelope: SmileIDEnvelope) {
        let stamp = Timestamp.now().text
        let (body, headers) = try SmileIDEncryption.encryptBody(plaintext, secret: secret, timestamp: stamp, requestId: requestID)
        return (headers, try SmileIDEnvelope.parse(body))
    }

    static func decrypt(_ h: GatewayHarness, headers: [String: String], body: Data, _ reason: DecryptResult.Reason) throws -> Case
    {
        let id = MessageID.random()
        let request = Message(DecryptRequest(headers: headers, bodyB64: body.base64EncodedString()), id: id)
        return Case(id: id, topic: h.decryptInput, value: try JSONCoding.encode(request), expected: .decrypt(reason))
    }

    static func raw(_ topic: String, _ object: [String: Any], _ expected: Expected) throws -> Case {
        let id = MessageID.random()
        var o = object
        o["id"] = id.text
        o["produced_at"] = Timestamp.now().text
        return Case(id: id, topic: topic, value: Array(try JSONSerialization.data(withJSONObject: o)), expected: expected)
    }

    /// The `id` member of a JSON message.
    static func id(of message: [UInt8]) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(message)) as? [String: Any])?["id"] as? String
    }

    /// The first of each id (items without one are all kept).
    static func distinct<T>(_ items: [(T, String?)]) -> [(T, String?)] {
        var seen = Set<String>()
        return items.filter { item in item.1.map { seen.insert($0).inserted } ?? true }
    }

    static func cases(_ h: GatewayHarness) throws -> [Case] {
        var cases: [Case] = []
        let (headers, envelope) = try sealed()
        let good = try envelope.jsonData()
        // Truncated envelopes.
        for cut in stride(from: 0, to: good.count - 1, by: max(1, good.count / 40)) {
            cases.append(try decrypt(h, headers: headers, body: good.prefix(cut), .malformedEnvelope))
        }
        // Every tag byte flipped, and ciphertext bits flipped.
        let tag = try Base64.decode(envelope.authTag)
        for i in 0..<16 {
            var e = envelope
            var t = tag
            t[i] ^= 0x01
            e.authTag = t.base64EncodedString()
            cases.append(try decrypt(h, headers: headers, body: try e.jsonData(), .authenticationFailed))
        }
        let data = try Base64.decode(envelope.encryptedData)
        for bit in 0..<20 {
            var e = envelope
            var d = data
            d[bit % d.count] ^= UInt8(1 << (bit % 8))
            e.encryptedData = d.base64EncodedString()
            cases.append(try decrypt(h, headers: headers, body: try e.jsonData(), .authenticationFailed))
        }
        // Wrong versions, in the header and in the envelope.
        for v in ["0.9", "1", "1.0.0", "2.0", "1.1", "v1.0", " 1.0", "10", "", "1.O"] {
            cases.append(
                try decrypt(
                    h, headers: headers.merging(["SmileID-Encryption-Version": v]) { $1 }, body: good,
                    v.isEmpty ? .unsupportedVersion : .unsupportedVersion))
            var e = envelope
            e.version = v
            cases.append(try decrypt(h, headers: headers, body: try e.jsonData(), .unsupportedVersion))
        }
        var wrongAlgorithm = envelope
        wrongAlgorithm.algorithm = "AES-128-GCM"
        cases.append(try decrypt(h, headers: headers, body: try wrongAlgorithm.jsonData(), .unsupportedVersion))
        // Missing headers.
        for name in GatewayHeaders.added {
            var missing = headers
            missing[name] = nil
            cases.append(try decrypt(h, headers: missing, body: good, .missingHeader))
        }
        cases.append(
            try decrypt(
                h, headers: headers.merging(["SmileID-Content-Encrypted": "false"]) { $1 }, body: good,
                .missingHeader))
        // Stale and future timestamps (checked before any key is derived).
        for offset: TimeInterval in [-86_400, -3600, -400, 400, 3600, 86_400 * 365, -86_400 * 365 * 30, 1e6, -1e6, 7200] {
            var e = envelope
            e.timestamp = Timestamp.format(Date().addingTimeInterval(offset))
            cases.append(try decrypt(h, headers: headers, body: try e.jsonData(), .staleTimestamp))
        }
        // Bad base64 and wrong lengths inside the envelope, and envelopes that are not envelopes.
        for bad in ["", "A", "AAA=", "====", "AAAAAAAA", "not base64!", "AAECAwQFBgcICQoLDA==", "YQ==="] {
            var e = envelope
            e.iv = bad
            cases.append(try decrypt(h, headers: headers, body: try e.jsonData(), .malformedEnvelope))
            e = envelope
            e.authTag = bad
            cases.append(try decrypt(h, headers: headers, body: try e.jsonData(), .malformedEnvelope))
        }
        for junk in ["[]", "null", "{}", "\"envelope\"", #"{"version":"1.0"}"#, "{\"version\":1.0}", "\u{0}", "{{{{"] {
            cases.append(try decrypt(h, headers: headers, body: Data(junk.utf8), .malformedEnvelope))
        }
        // Malformed multipart bodies to decrypt.
        let mpHeaders = headers.merging(["Content-Type": GatewayFixtures.multipartType]) { $1 }
        let fixture = GatewayFixtures.multipart()
        for cut in stride(from: 10, to: fixture.count, by: fixture.count / 12) {
            cases.append(try decrypt(h, headers: mpHeaders, body: fixture.prefix(cut), .malformedEnvelope))
        }
        cases.append(try decrypt(h, headers: mpHeaders, body: fixture, .malformedEnvelope))  // nothing encrypted in it
        cases.append(
            try decrypt(
                h, headers: headers.merging(["Content-Type": "multipart/form-data"]) { $1 }, body: fixture,
                .malformedEnvelope))  // no boundary
        // Malformed multipart bodies to encrypt: rejected, with the gateway's reason code.
        for cut in stride(from: 10, to: fixture.count, by: fixture.count / 30) {
            let request = Message(
                EncryptRequest(
                    headers: ["Content-Type": GatewayFixtures.multipartType], bodyB64: fixture.prefix(cut).base64EncodedString()))
            cases.append(
                Case(
                    id: request.id, topic: h.encryptInput, value: try JSONCoding.encode(request),
                    expected: .rejected("malformed_multipart")))
        }
        // ZIP bombs: archives declaring gigabytes, nested ten deep. The gateway never inflates a
        // ZIP it encrypts, so they are encrypted like any file.
        for level in 1...5 {
            var zip = GatewayFixtures.zip
            for _ in 0..<level {
                zip =
                    Data("PK\u{03}\u{04}".utf8) + Data([20, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0])
                    + Data([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 8, 0, 0, 0]) + Data("bomb.zip".utf8) + zip
            }
            let request = Message(
                EncryptRequest(headers: ["Content-Type": "application/zip"], bodyB64: zip.base64EncodedString()))
            cases.append(Case(id: request.id, topic: h.encryptInput, value: try JSONCoding.encode(request), expected: .encrypted))
        }
        // Shape errors the schema catches: non-canonical base64, unknown fields, bad header names.
        for bad in ["YQ===", "YR==", "Y", "a b c d", "////\n////"] {
            for topic in [h.encryptInput, h.decryptInput] {
                let schema = topic == h.encryptInput ? EncryptRequest.schemaName : DecryptRequest.schemaName
                cases.append(try raw(topic, ["schema": schema, "headers": [:], "body_b64": bad], .rejected("schema_violation")))
            }
        }
        for topic in [h.encryptInput, h.decryptInput] {
            let schema = topic == h.encryptInput ? EncryptRequest.schemaName : DecryptRequest.schemaName
            cases.append(
                try raw(topic, ["schema": schema, "headers": [:], "body_b64": "", "extra": 1], .rejected("schema_violation")))
            cases.append(
                try raw(topic, ["schema": schema, "headers": ["bad name": "x"], "body_b64": ""], .rejected("schema_violation")))
            cases.append(
                try raw(topic, ["schema": schema, "headers": ["a": "\u{1}"], "body_b64": ""], .rejected("schema_violation")))
            cases.append(
                try raw(
                    topic, ["schema": "hallmark.sign.request.v1", "headers": [:], "body_b64": ""],
                    .rejected("unknown_schema")))
            cases.append(try raw(topic, ["schema": schema, "body_b64": ""], .rejected("schema_violation")))
        }
        return cases
    }

    @Test func everyBadInputGetsOneTypedAnswer() async throws {
        let h = try await GatewayHarness(secrets: ["v1": Self.secret])
        let gateway = try await h.startGateway("hostile")
        let cases = try Self.cases(h)
        #expect(cases.count >= 200, "\(cases.count) cases")
        // Bytes that are not JSON at all carry no id: counted apart.
        let garbage: [[UInt8]] = [[], [0xff, 0xfe], Array("not json".utf8), Array("{\"id\":".utf8), [0x00]]
        for c in cases { try await h.send(c.topic, key: "hostile", c.value) }
        for g in garbage { try await h.send(h.decryptInput, key: "hostile", g) }
        let ids = Set(cases.map(\.id))
        // A refused request with a readable id is answered on its result topic too (DESIGN §2):
        // its rejected record and a rejected result (`malformed`, or the gateway's own code).
        let both = Set(
            cases.filter { c in
                if case .rejected = c.expected { true } else { false }
            }.map(\.id))
        let answered = await h.watcher.wait(timeout: .seconds(180)) { w in
            let rejected = w.messages(on: h.rejected).compactMap {
                try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
            }
            let rejectedIDs = Set(rejected.compactMap { $0["original_id"] as? String })
            return ids.allSatisfy { id in
                both.contains(id)
                    ? !w.answers(for: id).isEmpty && rejectedIDs.contains(id.text)
                    : !w.answers(for: id).isEmpty || rejectedIDs.contains(id.text)
            } && rejected.filter { $0["original_id"] == nil }.count >= garbage.count
        }
        #expect(answered)
        // The tampered envelopes (naming no partner) raised tampered_payload events, no more
        // than one subject's share of a window (HALLMARK_GATEWAY_EVENTS_PER_SUBJECT, 10).
        let tamperedCases = cases.filter { if case .decrypt(.authenticationFailed) = $0.expected { true } else { false } }
        #expect(tamperedCases.count > 10)
        #expect(try await eventually { h.securityEvents().contains { $0.event.event == .tamperedPayload } })
        #expect(h.securityEvents().filter { $0.event.event == .tamperedPayload }.count <= 10)
        let rejections = h.rejections()
        for c in cases {
            // A redelivery (a slow machine's rebalance) gets its first answer again, under the
            // same id: a consumer drops the copy, and so does this count.
            let answers = Self.distinct(h.watcher.answers(for: c.id).map { ($0, Self.id(of: $0)) }).map(\.0)
            let records = Self.distinct((rejections[c.id.text] ?? []).map { ($0, $0["id"] as? String) }).map(\.0)
            #expect(
                answers.count + records.count == (both.contains(c.id) ? 2 : 1),
                "\(c.expected): \(answers.count) answers, \(records.count) rejections")
            switch c.expected {
            case .decrypt(let reason):
                let result = try answers.first.map { try JSONCoding.decode(Message<DecryptResult>.self, from: $0) }
                #expect(
                    result?.status == .rejected && result?.reason == reason,
                    "expected \(reason), got \(String(describing: result?.reason))")
                #expect(result?.bodyB64 == nil && result?.headers == nil)
            case .rejected(let code):
                #expect(records.first?["reason"] as? String == code, "expected \(code): \(records.first ?? [:])")
                if c.topic == h.decryptInput {
                    let result = try answers.first.map { try JSONCoding.decode(Message<DecryptResult>.self, from: $0) }
                    #expect(result?.status == .rejected && result?.reason == .malformed && result?.bodyB64 == nil)
                } else {
                    // No request in it: nothing half-encrypted can be chained on.
                    let result = try answers.first.map {
                        try JSONCoding.decode(Message<CarrierRejection<EncryptResult>>.self, from: $0)
                    }
                    let expected = code == "malformed_multipart" ? code : "malformed"
                    #expect(result?.status == "rejected" && result?.reason.rawValue == expected, "\(String(describing: result))")
                    #expect(answers.first.flatMap { try? JSONReader.parse($0)["headers"] } == nil)
                }
            case .encrypted:
                let result = try answers.first.map { try JSONCoding.decode(Message<EncryptResult>.self, from: $0) }
                #expect(result?.decision == .encrypted(.zip))
            }
        }
        #expect(h.rejections()[""]?.count == garbage.count)
        // Still up: a good request after all of that is answered.
        let (headers, envelope) = try Self.sealed(Data("after".utf8), requestID: "after")
        let last = try Self.decrypt(h, headers: headers, body: try envelope.jsonData(), .authenticationFailed)
        try await h.send(last.topic, key: "hostile", last.value)
        let result = try await h.answer(DecryptResult.self, to: last.id, on: h.decryptOutput)
        #expect(result.status == .accepted && result.bodyB64 == Data("after".utf8).base64EncodedString())
        gateway.signal(SIGTERM)
        #expect(await gateway.waitForExit(timeout: .seconds(30)) == 0)
        await h.close()
    }
}
