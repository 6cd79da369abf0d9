import Foundation
import HallmarkCLICore
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// The size matrix on every gateway input, privacy requests included: 0.9–8 MB and the limit
/// ±1 byte, padded with whitespace (the request itself is small) or, where a body can grow, with
/// content (then the result, which carries more than the body, may not fit: `oversized`), each
/// followed by small messages on the same key and another key. Every message gets exactly one
/// outcome and no partition of any stage stalls.
@Suite("Gateway: no input size stalls a partition", .serialized, .timeLimit(.minutes(10)))
struct GatewayOversizedInputTests {
    @Test func everySizeOnEveryInputGetsOneOutcome() async throws {
        let h = try await GatewayHarness()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-sizes-\(h.id)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let privacy = try await h.privacy(in: folder)
        let gateway = try await h.startGateway("sizes", privacy.gateway)
        let limit = 1 << 20
        let matrix = try SizeMatrix(kafka: h.kafka, logger: h.logger)
        /// Raw body bytes that take a message made by `make` to about `size` bytes (base64 grows 4/3).
        func sized(_ size: Int?, _ make: (Data) throws -> [UInt8]) throws -> [UInt8] {
            let small = try make(Data(repeating: 0x61, count: 16))
            guard let size else { return small }
            return try make(Data(repeating: 0x61, count: max(0, size - (small.count - 24)) / 4 * 3))
        }
        let encrypt = try await matrix.run(
            topic: h.encryptInput, results: h.encryptOutput, idField: "request_id",
            rejected: h.rejected, limit: limit, paddings: [.whitespace, .content]
        ) { id, size in
            try sized(size) { body in
                try JSONCoding.encode(
                    Message(
                        EncryptRequest(headers: ["Content-Type": "application/json"], bodyB64: body.base64EncodedString()),
                        id: MessageID(id)!
                    ))
            }
        }
        let decrypt = try await matrix.run(
            topic: h.decryptInput, results: h.decryptOutput, idField: "request_id",
            rejected: h.rejected, limit: limit, paddings: [.whitespace, .content]
        ) { id, size in
            try sized(size) { body in
                try JSONCoding.encode(
                    Message(
                        DecryptRequest(
                            headers: [
                                "SmileID-Encryption-Version": "1.0", "SmileID-Request-ID": "r",
                                "SmileID-Content-Encrypted": "true",
                            ], bodyB64: body.base64EncodedString()), id: MessageID(id)!))
            }
        }
        let pair = try X25519.generate()
        let handshake = try await matrix.run(
            topic: h.topic("handshake.in"), results: h.topic("handshake.out"),
            idField: "request_id", rejected: h.rejected, limit: limit
        ) { id, _ in
            try JSONCoding.encode(
                Message(
                    E2EEHandshake(sessionID: "size-\(id)", clientPublicKey: pair.publicKey.base64EncodedString()),
                    id: MessageID(id)!))
        }
        let session = try InvisoSession(sessionKey: Data(repeating: 7, count: 32))
        let inbound = try await matrix.run(
            topic: h.topic("inbound.in"), results: h.topic("plaintext.out"),
            idField: "request_id", rejected: h.rejected, limit: limit,
            paddings: [.whitespace, .content]
        ) { id, size in
            try sized(size) { body in
                try JSONCoding.encode(
                    Message(
                        E2EEInbound(
                            sessionID: "no-such-session", message: try session.seal(body, direction: .clientToGateway, counter: 0)
                        ), id: MessageID(id)!))
            }
        }
        let outbound = try await matrix.run(
            topic: h.topic("outbound.in"), results: h.topic("outbound.out"),
            idField: "request_id", rejected: h.rejected, limit: limit,
            paddings: [.whitespace, .content]
        ) { id, size in
            try sized(size) { body in
                try JSONCoding.encode(
                    Message(
                        E2EEOutboundRequest(sessionID: "no-such-session", plaintextB64: body.base64EncodedString()),
                        id: MessageID(id)!))
            }
        }
        let privacyRequests = try await matrix.run(
            topic: h.topic("privacy.in"), results: h.topic("privacy.out"),
            idField: "request_id", rejected: h.rejected, limit: limit
        ) { id, _ in
            // Signed, about a session that does not exist: each is answered `not_found`.
            try JSONCoding.encode(
                try privacy.key.sign(
                    Message(
                        PrivacyRequest(action: .export, subjectType: .sessionID, subject: "size-\(id.prefix(8))"),
                        id: MessageID(id)!)))
        }
        for report in [encrypt, decrypt, handshake, inbound, outbound, privacyRequests] {
            #expect(report.stalled == 0 && report.duplicated == 0 && report.answered == report.sent, "\(report)")
            for line in report.large {
                let size = Int(line.prefix { $0.isNumber })!
                if size > limit { #expect(line.hasSuffix(": oversized"), "\(line)") }
                if line.contains("whitespace"), size <= limit { #expect(line.hasSuffix(": result"), "\(line)") }
            }
        }
        // An encrypted body is larger than the plaintext: one that took its request near the
        // limit cannot come back, and is refused as oversized rather than stalling.
        #expect(
            encrypt.large.contains {
                $0.contains("content") && $0.hasSuffix(": oversized") && Int($0.prefix { $0.isNumber })! <= limit
            })
        gateway.signal(SIGTERM)
        #expect(await gateway.waitForExit(timeout: .seconds(30)) == 0)
        await matrix.close()
        await h.close()
    }
}
