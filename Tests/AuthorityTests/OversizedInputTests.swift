import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// Issue #10 §1 on every input of the authority (provisioning, tokens, admin, privacy): inputs of
/// 0.9–8 MB and at the limit ±1 byte, each followed by small messages on the same key and on
/// another key. Every message gets exactly one outcome and nothing stalls; over the limit the
/// outcome is `oversized`.
@Suite("Authority: no input size stalls a partition", .serialized, .timeLimit(.minutes(8)))
struct AuthorityOversizedInputTests {
    @Test func everySizeOnEveryInputGetsOneOutcome() async throws {
        let h = try await AuthorityHarness()
        let authority = try await h.start("sizes")
        let c = h.configuration, limit = 1 << 20
        let matrix = try SizeMatrix(kafka: h.kafka, logger: h.logger)
        func hex(_ n: Int) throws -> String { Hex.encode(try SecureRandom.bytes(n)) }
        let provision = try await matrix.run(
            topic: c.provisionInput, results: c.provisionOutput, idField: "request_id",
            rejected: h.rejected, limit: limit
        ) { id, _ in
            try JSONCoding.encode(
                Message(
                    ProvisionRequest(
                        deviceSerial: "SIZE-\(id.prefix(8))",
                        devicePublicKey: try X25519.generate().publicKey.base64EncodedString(), nucHash: nil, deviceFamily: nil),
                    id: MessageID(id)!))
        }
        let tokens = try await matrix.run(
            topic: c.tokenInput, results: c.tokenOutput, idField: "request_id",
            rejected: h.rejected, limit: limit
        ) { id, _ in
            let token = BirthmarkCameraToken(
                ciphertext: try hex(32), authTag: try hex(16), nonce: try hex(12),
                tableId: 1, keyIndex: 7)
            return try JSONCoding.encode(Message(TokenRequest(token: .reference(token)), id: MessageID(id)!))
        }
        let admin = try await matrix.run(
            topic: c.adminInput, results: c.securityTopic, idField: "request_id",
            rejected: h.rejected, limit: limit
        ) { id, _ in
            // Signed: a refused command's rejected record and its security event would be two outcomes.
            try JSONCoding.encode(
                try h.operatorKey.sign(
                    Message(AdminCommand(command: .rotateKEK, reason: "size test"), id: MessageID(id)!)))
        }
        let privacy = try await matrix.run(
            topic: c.privacy.requests, results: c.privacy.results, idField: "request_id",
            rejected: h.rejected, limit: limit
        ) { id, _ in
            // Signed, about a camera that does not exist: each is answered `not_found`.
            try JSONCoding.encode(
                try h.operatorKey.sign(
                    Message(
                        PrivacyRequest(action: .export, subjectType: .deviceSerial, subject: "SIZE-\(id.prefix(8))"),
                        id: MessageID(id)!)))
        }
        for report in [provision, tokens, admin, privacy] {
            #expect(report.stalled == 0 && report.duplicated == 0 && report.answered == report.sent, "\(report)")
            for line in report.large where Int(line.prefix { $0.isNumber })! > limit {
                #expect(line.hasSuffix(": oversized"), "\(line)")
            }
        }
        authority.signal(SIGTERM)
        #expect(await authority.waitForExit(timeout: .seconds(30)) == 0)
        await matrix.close()
        await h.close()
    }
}
