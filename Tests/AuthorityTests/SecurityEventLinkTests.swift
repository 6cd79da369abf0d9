import AuthorityCore
import Foundation
import HallmarkCLICore
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// DESIGN §2: no security event lets the aggregator, which chooses token request ids, link a
/// submission to a camera. Every event the authority raises across its scenarios is read back.
@Suite("Authority security events never link a request to a camera", .serialized, .timeLimit(.minutes(10)))
struct SecurityEventLinkTests {
    @Test func noEventCarriesADeviceAndARequest() async throws {
        let h = try await AuthorityHarness(tables: 8)
        let service = try await h.start(
            "links",
            [
                "HALLMARK_AUTHORITY_WARN_THRESHOLD": "3",
                "HALLMARK_AUTHORITY_BLACKLIST_THRESHOLD": "5",
            ])
        defer { service.signal(SIGKILL) }
        let cam = try await h.provisioned("CAM-\(h.id)-links")
        // Another camera with a table the first one has and it has not (assignments are random).
        var other = try await h.provisioned("CAM-\(h.id)-other")
        for n in 1...5 where Set(other.tableAssignments) == Set(cam.tableAssignments) {
            other = try await h.provisioned("CAM-\(h.id)-other-\(n)")
        }
        var requests: [MessageID] = []
        func validate(_ token: BirthmarkCameraToken) async throws -> Message<TokenResult> {
            let id = MessageID.random()
            requests.append(id)
            return try await h.validate(try ProvisioningFile.requestBytes(token, id: id), id: id)
        }

        // Token rejections: tampered, unknown device, table not assigned, replayed.
        var t = try cam.referenceRequest().token
        t.authTag = AuthorityIntegrationTests.flip(t.authTag)
        #expect(try await validate(t).reason == .token(.authenticationFailed))
        var stranger = other
        stranger.nucHash = Hex.encode(try SecureRandom.bytes(32))
        #expect(try await validate(stranger.referenceRequest().token).reason == .token(.unknownDevice))
        let foreign = try #require(cam.tableAssignments.first { !other.tableAssignments.contains($0) })
        t = try other.referenceRequest(table: foreign, master: try cam.masterKey(foreign)).token
        #expect(try await validate(t).reason == .token(.tableNotAssigned))
        let once = try other.referenceRequest().token
        #expect(try await validate(once).valid)
        #expect(try await validate(once).reason == .replayedToken)

        // The abuse thresholds: a warning at 3 validations, a blacklisting at 5, then FAIL blacklisted.
        for _ in 0..<6 { _ = try await validate(cam.referenceRequest().token) }
        #expect(await h.waitForSecurity(.abuseWarning))
        #expect(await h.waitForSecurity(.abuseBlacklisted))

        // Admin actions, and a refused command naming a device.
        try await h.sendAdmin(
            Message(AdminCommand(command: .blacklist, deviceSerial: other.deviceSerial, reason: "stolen")))
        try await h.sendAdmin(
            Message(AdminCommand(command: .unblacklist, deviceSerial: other.deviceSerial, reason: "found")))
        try await h.sendAdmin(
            Message(AdminCommand(command: .retireTable, tableId: foreign)))
        try await h.sendAdmin(Message(AdminCommand(command: .rotateKEK)))
        try await h.sendAdmin(
            bytes: try JSONCoding.encode(
                Message(AdminCommand(command: .blacklist, deviceSerial: cam.deviceSerial))))
        for kind: SecurityEvent.Kind in [
            .deviceBlacklisted, .deviceUnblacklisted, .tableRetired, .kekRotation,
            .adminCommandRejected,
        ] {
            #expect(await h.waitForSecurity(kind), "no \(kind.rawValue) event")
        }
        #expect(await h.waitForSecurity(.tokenRejected, count: 4))
        #expect(await h.waitForSecurity(.replayedToken))

        let schema = try JSONSchemaValidator.load("hallmark.security.event.v1")
        let raw = h.watcher.messages(on: h.configuration.securityTopic)
        for message in raw { try schema.validate(bytes: message) }
        let events = h.securityEvents()
        #expect(events.count == raw.count)
        let both = events.filter { $0.deviceSerial != nil && $0.requestID != nil }
        #expect(both.isEmpty, "events with a device and a request: \(both.map(\.event))")
        // Nor may a device's event id be computable from a request id, as output ids are.
        let named = events.filter { $0.deviceSerial != nil }
        #expect(named.count >= 4)
        let derivable = Set(
            requests.flatMap { r in
                SecurityEvent.Kind.allCases.flatMap { k in
                    ["security-\(k.rawValue)", "security", k.rawValue].map { MessageID.derived(from: r, $0) }
                }
            })
        #expect(named.allSatisfy { !derivable.contains($0.id) }, "a device event's id is derived from a request id")
        await h.close()
    }

    /// The schema refuses an event with both, whoever produces it.
    @Test func theSchemaRefusesAnEventWithADeviceAndARequest() throws {
        let schema = try JSONSchemaValidator.load("hallmark.security.event.v1")
        var event = Message(
            SecurityEvent(service: "authority", instance: "a", event: .abuseWarning, severity: .warning, deviceSerial: "CAM-1"))
        try schema.validate(bytes: JSONCoding.encode(event))
        event.header.requestID = MessageID.random()
        #expect(throws: (any Error).self) { try schema.validate(bytes: JSONCoding.encode(event)) }
    }
}
