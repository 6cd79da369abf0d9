import Crypto
import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkMessages

/// Valid instances of every message type, made the way Hallmark makes them (real tokens,
/// keys, signatures and proofs), several per schema where a schema has several shapes. The
/// schema tests check each against its schema and derive invalid documents from them; service
/// tests send those derivations through the running services.
public enum MessageExamples {
    /// One example: its schema name, what it shows, and the message.
    public struct Example: Sendable {
        public let schema: String
        public let what: String
        public let message: any HallmarkMessage

        public init(_ what: String, _ message: any HallmarkMessage) {
            schema = type(of: message).schemaName
            self.what = what
            self.message = message
        }

        /// The message as Hallmark writes it (`JSONCoding`).
        public func bytes() throws -> [UInt8] { try JSONCoding.encode(message) }

        /// The message as a JSON value.
        public func json() throws -> JSONValue { try JSONReader.parse(try bytes()) }
    }

    static func id() -> MessageID { MessageID.random() }
    static func now() -> String { Timestamp.now().text }
    static func hex(_ n: Int) throws -> String { Hex.encode(try SecureRandom.bytes(n)) }
    static func b64(_ n: Int) throws -> String { Base64.encode(try SecureRandom.bytes(n)) }

    /// `body` as the answer to request `request`: a fresh id, produced now, the request's id
    /// as `request_id` and `correlationID` (the request's id when nil) as `correlation_id`.
    static func answer<Body: MessageBody>(_ body: Body, to request: MessageID, correlationID: String? = nil) -> Message<Body> {
        Message(body, correlationID: correlationID ?? request.text, requestID: request)
    }

    /// Every example, for every schema in `proto-json/`.
    public static func all() throws -> [Example] {
        try core() + signer() + authority() + gateway() + aggregator() + privacy()
    }

    /// The examples of one schema.
    public static func of(_ schema: String) throws -> [Example] { try all().filter { $0.schema == schema } }

    static func core() throws -> [Example] {
        let source = RejectedRecord.Source(topic: "smileid.sign.requests", partition: 3, offset: 42)
        return [
            Example("warm-up", Message(BenchMessage(n: -1, sentNs: 0, pad: "xxxx"))),
            Example(
                "snapshot",
                Message(
                    MetricsSnapshot(
                        service: "signer", instance: "host-1234", intervalSeconds: 10,
                        counters: [
                            .init(
                                name: "hallmark_stage_processed_total",
                                dimensions: ["service": "signer", "topic": "smileid.sign.requests"], value: 12)
                        ],
                        gauges: [.init(name: "hallmark_stage_in_flight", dimensions: ["service": "signer"], value: 3)],
                        histograms: [
                            .init(
                                name: "hallmark_stage_processing_ns", dimensions: ["service": "signer"], count: 4, sum: 400,
                                min: 50, max: 150, p50: 100, p90: 140, p99: 150)
                        ]))),
            Example(
                "request",
                Message(
                    ProbeRequest(n: 7, fail: "reject"), correlationID: "probe-7",
                    replyTo: "hallmark.probe.results")),
            Example("result", Message(ProbeResult(n: 7, instance: "host-1"), correlationID: "probe-7")),
            Example(
                "whole original",
                Message(
                    RejectedRecord(
                        service: "signer", instance: "host-1", reason: .schemaViolation,
                        detail: "$.body_b64: does not match the pattern", source: source, originalID: id(),
                        original: Array(#"{"schema":"hallmark.sign.request.v1"}"#.utf8), limit: 1 << 20))),
            Example(
                "truncated original",
                Message(
                    RejectedRecord(
                        service: "authority", instance: "host-1", reason: .oversized,
                        detail: "2000000 bytes;\nthe limit is 1048576", source: source, originalID: nil,
                        original: Array(repeating: 0x41, count: 9000), limit: 4096))),
            Example(
                "device event",
                Message(
                    SecurityEvent(
                        service: "authority", instance: "host-1",
                        event: .deviceBlacklisted, severity: .warning, reason: "stolen camera",
                        deviceSerial: "CAM-0001"))),
            Example(
                "rate event",
                Message(
                    SecurityEvent(
                        service: "signer", instance: "host-1",
                        event: .rejectionRate, severity: .warning, reason: "bad_mac",
                        count: 12, partnerID: "002", windowSeconds: 60),
                    requestID: id())),
        ]
    }

    static func signer() throws -> [Example] {
        let headers = ["Content-Type": "application/json", "SmileID-Partner-ID": "002", "SmileID-Source-SDK": "iOS"]
        var signed = headers
        signed["SmileID-Request-Timestamp"] = "2025-01-01T00:00:00.000Z"
        signed["SmileID-Request-Mac"] = "NfIMuN27o4N21wG5w1/zpFWxD6IKLAKVcDKdj+Nc+3I="
        let body = Base64.encode(Data(#"{"job_id":"job-1","user_id":"user-1"}"#.utf8))
        let request = id()
        return [
            Example(
                "with method, path and timestamp",
                Message(
                    SignRequest(
                        headers: headers, bodyB64: body, timestamp: "2025-01-01T00:00:00.000Z",
                        method: "POST", path: "/v1/submit_job?x=1"),
                    correlationID: "job-1", replyTo: "smileid.sign.results")),
            Example("minimal", Message(SignRequest(headers: [:], bodyB64: ""))),
            Example(
                "signed",
                answer(
                    SignResult(
                        method: "POST", path: "/v1/submit_job", headers: signed, bodyB64: body,
                        secretVersion: "v1"),
                    to: request)),
            Example(
                "rejected",
                answer(CarrierRejection<SignResult>(reason: .malformed), to: request, correlationID: "job-1")),
            Example(
                "rejected upstream",
                answer(
                    CarrierRejection<SignResult>(reason: .upstreamRejected, upstreamReason: "malformed_multipart"),
                    to: request)),
            Example(
                "request",
                Message(
                    VerifyRequest(method: "POST", path: "/v1/submit_job", headers: signed, bodyB64: body),
                    correlationID: "job-1")),
            Example(
                "accepted",
                answer(
                    VerifyResult(
                        reason: nil, secretVersion: "v1", method: "POST", path: "/v1/submit_job",
                        headers: signed, bodyB64: body),
                    to: request)),
            Example(
                "rejected, from a sign result",
                answer(
                    VerifyResult(
                        reason: .replay, secretVersion: nil, method: nil, path: nil, headers: signed, bodyB64: body),
                    to: request)),
        ]
    }

    static func authority() throws -> [Example] {
        let master = try SecureRandom.bytes(32), nuc = try SecureRandom.bytes(32)
        let reference = try BirthmarkCameraToken.seal(nucHash: nuc, master: master, tableId: 12, keyIndex: 42)
        let mobile = try BirthmarkMobileToken.seal(
            nucHash: nuc, master: master, tableReferences: [3, 9, 12],
            keyIndices: [42, 42, 7], used: 2)
        let keys = try X25519.generate()
        let request = id()
        return [
            Example(
                "provision",
                Message(
                    ProvisionRequest(
                        deviceSerial: "CAM-0001",
                        devicePublicKey: Base64.encode(keys.publicKey), nucHash: Hex.encode(nuc),
                        deviceFamily: "Raspberry Pi HQ"))),
            Example(
                "provision, certificate mode",
                Message(
                    ProvisionRequest(
                        deviceSerial: "CAM-0002", devicePublicKey: Base64.encode(keys.publicKey), nucHash: nil,
                        deviceFamily: nil,
                        deviceSigningKey: Base64.encode(P256.Signing.PrivateKey().publicKey.derRepresentation)))),
            Example(
                "provisioned",
                answer(
                    ProvisionResult(
                        deviceSerial: "CAM-0001", status: .provisioned,
                        tableAssignments: [3, 9, 12], sealedProvisioning: try b64(32 + 12 + 180 + 16)),
                    to: request)),
            Example(
                "rejected",
                answer(
                    ProvisionResult(
                        deviceSerial: "CAM-0001", status: .rejected, reason: .alreadyProvisioned),
                    to: request)),
            Example(
                "reference token",
                Message(
                    TokenRequest(token: .reference(reference)),
                    correlationID: "submission-1", replyTo: "birthmark.token.results")),
            Example("mobile token", Message(TokenRequest(token: .mobile(mobile)))),
            Example(
                "packed token",
                Message(TokenRequest(token: .mobile(try packed(reference, tables: [12, 3, 9]))))),
            Example("pass", answer(TokenResult(reason: nil), to: request)),
            Example(
                "fail",
                answer(TokenResult(reason: .replayedToken), to: request, correlationID: "submission-1")),
            Example(
                "carrier of three formats",
                Message(
                    TokenRequestBatch(items: [
                        Message(TokenRequest(token: .reference(reference)), correlationID: "submission-1"),
                        Message(TokenRequest(token: .mobile(mobile)), correlationID: "submission-2"),
                        Message(TokenRequest(token: .mobile(try packed(reference, tables: [12, 3, 9])))),
                    ]), replyTo: "birthmark.token.results")),
            Example(
                "a certificate bundle's device",
                Message(
                    DeviceRequest(handle: try b64(94), certificateSerial: try hex(20)), correlationID: "submission-3",
                    replyTo: "birthmark.token.results")),
            Example("device pass", answer(DeviceResult(reason: nil), to: request)),
            Example("device blacklisted", answer(DeviceResult(reason: .token(.blacklisted)), to: request)),
            Example(
                "pass and fail",
                answer(
                    TokenResultBatch(items: [
                        answer(TokenResult(reason: nil), to: id(), correlationID: "submission-1"),
                        answer(TokenResult(reason: .replayedToken), to: id(), correlationID: "submission-2"),
                    ]), to: request)),
            Example(
                "blacklist",
                Message(AdminCommand(command: .blacklist, deviceSerial: "CAM-0001", reason: "reported stolen"))),
            Example("retire", Message(AdminCommand(command: .retireTable, tableId: 12))),
            Example("rotate", Message(AdminCommand(command: .rotateKEK))),
        ]
    }

    /// The packed reference format the Raspberry Pi client sends: b64(ciphertext ‖ nonce ‖ tag),
    /// the real index at the used table's position.
    public static func packed(_ token: BirthmarkCameraToken, tables: [Int]) throws -> BirthmarkMobileToken {
        let parts = try token.sealedParts()
        let position = tables.firstIndex(of: token.tableId) ?? 0
        let indices = (0..<3).map { $0 == position ? token.keyIndex : ($0 * 331 + 17) % 1000 }
        return BirthmarkMobileToken(
            encryptedNucToken: Base64.encode(parts.ciphertext + parts.nonce + parts.tag),
            tableReferences: tables, keyIndices: indices)
    }
}
