import Foundation
import GatewayCore
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkSmileID
import HallmarkTestSupport
import Testing

/// The gateway's `hallmark.security` events, through the gateway as its own process on the real
/// broker and PostgreSQL: E2EE-1 replays, counter jumps and forgeries (about the session),
/// tampered ENC-1 envelopes (about the partner), each once, schema-valid and free of anything
/// secret; a flood bounded per session, with its rate alert and the summary of what it held back.
@Suite("Gateway security events", .serialized, .timeLimit(.minutes(5)))
struct GatewaySecurityEventTests {
    /// Events per subject per window, rejections before the rate alert, and the window.
    static let limits = [
        "HALLMARK_GATEWAY_EVENTS_PER_SUBJECT": "3", "HALLMARK_GATEWAY_ALERT_REJECTIONS": "5",
        "HALLMARK_GATEWAY_ALERT_WINDOW_SECONDS": "15",
    ]

    func handshake(_ h: GatewayHarness) async throws -> InvisoClient {
        var client = try InvisoClient()
        let request = client.handshake()
        try await h.send(h.topic("handshake.in"), key: client.sessionID, message: request)
        try client.complete(try await h.answer(E2EEHandshakeResult.self, to: request.id, on: h.topic("handshake.out")))
        return client
    }

    func forged(_ client: InvisoClient, _ text: String, counter: UInt64) throws -> Message<E2EEInbound> {
        var message = try client.inbound(text, counter: counter)
        var tag = try Base64.decode(message.message.tag)
        tag[0] ^= 0x01
        message.message.tag = tag.base64EncodedString()
        return message
    }

    /// Sends `messages` and waits for each answer: the reasons, in order.
    func send(_ h: GatewayHarness, _ messages: [Message<E2EEInbound>]) async throws -> [E2EEPlaintext.Reason?] {
        for m in messages { try await h.send(h.topic("inbound.in"), key: m.sessionID, message: m) }
        var reasons: [E2EEPlaintext.Reason?] = []
        for m in messages {
            reasons.append(try await h.answer(E2EEPlaintext.self, to: m.id, on: h.topic("plaintext.out")).reason)
        }
        return reasons
    }

    func gatewayEvents(_ h: GatewayHarness) -> [(event: Message<SecurityEvent>, raw: [UInt8])] {
        h.securityEvents().filter { $0.event.service == "gateway" }
    }

    @Test func replaysJumpsAndForgeriesRaiseOneEventEach() async throws {
        let h = try await GatewayHarness()
        let gateway = try await h.startGateway("events", Self.limits)
        let client = try await handshake(h)
        let secret = "the plaintext nobody may see"
        let replayed = try client.inbound(secret, counter: 1)
        let jumped = try client.inbound(secret, counter: 2 + 1000)
        let tampered = try forged(client, secret, counter: 2)
        let reasons = try await send(
            h,
            [
                try client.inbound("first", counter: 0), try client.inbound("second", counter: 1),
                replayed, jumped, tampered,
            ])
        #expect(reasons == [nil, nil, .replay, .counterJump, .authenticationFailed])
        #expect(try await eventually { gatewayEvents(h).count >= 3 })

        let expected: [(Message<E2EEInbound>, SecurityEvent.Kind, String)] = [
            (replayed, .replayedMessage, "replay"), (jumped, .counterJump, "counter_jump"),
            (tampered, .tamperedMessage, "authentication_failed"),
        ]
        for (message, kind, reason) in expected {
            let matching = gatewayEvents(h).filter { $0.event.requestID == message.id }
            #expect(matching.map(\.event.event) == [kind], "\(kind): \(matching.map(\.event.event))")
            guard let (event, raw) = matching.first else { continue }
            #expect(event.sessionID == client.sessionID && event.reason == reason && event.severity == .warning)
            #expect(event.partnerID == nil && event.deviceSerial == nil)
            try SchemaCheck.validate(JSONSerialization.jsonObject(with: Data(raw)), against: SecurityEvent.schemaName)
            // Nothing of the message itself: neither plaintext nor ciphertext, tag, nonce or key.
            let text = String(decoding: raw, as: UTF8.self)
            for secretPart in [
                secret, message.message.ciphertext, message.message.tag, message.message.nonce,
                client.session!.sessionKey.base64EncodedString(),
            ] {
                #expect(!text.contains(secretPart))
            }
        }
        #expect(gatewayEvents(h).count == 3, "\(gatewayEvents(h).map(\.event.event))")
        #expect(try await eventually { h.counter("hallmark_gateway_security_events_total", [:]) == 3 })
        gateway.signal(SIGTERM)
        #expect(await gateway.waitForExit(timeout: .seconds(30)) == 0)
        await h.close()
    }

    /// 20 forgeries on one session: 3 events of their own, one rate alert when the rejections
    /// pass 5, and when the window ends (15 s, so a slow machine's 20 round trips fit in one),
    /// one summary counting the 17 held back. Another session is not held back by the first
    /// one's flood.
    @Test func aFloodIsBoundedPerSessionAndSummarised() async throws {
        let h = try await GatewayHarness()
        let gateway = try await h.startGateway("flood", Self.limits)
        let flooded = try await handshake(h)
        let other = try await handshake(h)
        let flood = try (0..<20).map { try forged(flooded, "flood \($0)", counter: UInt64($0)) }
        #expect(try await send(h, flood) == Array(repeating: .authenticationFailed, count: 20))
        #expect(try await send(h, [try forged(other, "other", counter: 0)]) == [.authenticationFailed])

        func of(_ session: String, _ kind: SecurityEvent.Kind) -> [Message<SecurityEvent>] {
            gatewayEvents(h).map(\.event).filter { $0.sessionID == session && $0.event == kind }
        }
        #expect(try await eventually(timeout: .seconds(45)) { !of(flooded.sessionID, .eventsSuppressed).isEmpty })
        #expect(of(flooded.sessionID, .tamperedMessage).count == 3)
        let alerts = of(flooded.sessionID, .rejectionRate)
        #expect(alerts.count == 1 && alerts.first?.count == 6 && alerts.first?.windowSeconds == 15)
        let summaries = of(flooded.sessionID, .eventsSuppressed)
        #expect(summaries.count == 1 && summaries.first?.count == 17 && summaries.first?.requestID == nil)
        #expect(of(other.sessionID, .tamperedMessage).count == 1)
        for (_, raw) in gatewayEvents(h) {
            try SchemaCheck.validate(JSONSerialization.jsonObject(with: Data(raw)), against: SecurityEvent.schemaName)
        }
        gateway.signal(SIGTERM)
        #expect(await gateway.waitForExit(timeout: .seconds(30)) == 0)
        await h.close()
    }

    /// An ENC-1 envelope that fails authentication raises `tampered_payload` about its partner;
    /// other decrypt rejections (a stale timestamp, a malformed envelope) count toward the
    /// partner's rate but have no event of their own.
    @Test func aTamperedEnvelopeRaisesAnEventAboutItsPartner() async throws {
        let h = try await GatewayHarness()
        let gateway = try await h.startGateway("enc1", Self.limits)
        let partner = "partner-\(h.id)"
        let (headers, envelope) = try GatewayHostileInputTests.sealed(Data("secret body".utf8), requestID: "tamper-1")
        var tampered = envelope
        var tag = try Base64.decode(envelope.authTag)
        tag[5] ^= 0x80
        tampered.authTag = tag.base64EncodedString()
        let withPartner = headers.merging([HeaderMap.partner: partner]) { $1 }
        let bad = try GatewayHostileInputTests.decrypt(
            h, headers: withPartner, body: try tampered.jsonData(), .authenticationFailed)
        let malformed = try GatewayHostileInputTests.decrypt(h, headers: withPartner, body: Data("{".utf8), .malformedEnvelope)
        for c in [bad, malformed] { try await h.send(c.topic, key: partner, c.value) }
        #expect(try await h.answer(DecryptResult.self, to: bad.id, on: h.decryptOutput).reason == .authenticationFailed)
        #expect(try await h.answer(DecryptResult.self, to: malformed.id, on: h.decryptOutput).reason == .malformedEnvelope)

        #expect(try await eventually { !gatewayEvents(h).isEmpty })
        let events = gatewayEvents(h)
        #expect(events.map(\.event.event) == [.tamperedPayload])
        let event = try #require(events.first)
        #expect(event.event.partnerID == partner && event.event.requestID == bad.id && event.event.sessionID == nil)
        #expect(event.event.reason == "authentication_failed")
        try SchemaCheck.validate(JSONSerialization.jsonObject(with: Data(event.raw)), against: SecurityEvent.schemaName)
        let text = String(decoding: event.raw, as: UTF8.self)
        #expect(!text.contains(tampered.encryptedData) && !text.contains(tampered.authTag) && !text.contains("secret body"))
        gateway.signal(SIGTERM)
        #expect(await gateway.waitForExit(timeout: .seconds(30)) == 0)
        await h.close()
    }
}
