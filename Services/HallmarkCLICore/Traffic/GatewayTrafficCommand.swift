import ArgumentParser
import Foundation
import GatewayCore
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import Logging

/// `hallmark traffic gateway`: encrypt requests of each kind (JSON, ZIP, multipart with two
/// images) and one with `SmileID-Skip-Encryption` through the running gateway, then decrypt
/// every encrypted result and a tampered copy; checks each plaintext comes back byte for byte.
/// Then an E2EE-1 session: a handshake, inbound messages and a replay, outbound replies.
package struct GatewayTrafficCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Encrypt sample requests (JSON, ZIP, multipart), decrypt them and a tampered one; check every answer.")

    @Option(help: "Encrypt requests to send (the kinds take turns).") var count = 21
    @Option(help: "Inbound E2EE-1 messages to send through one session.") var messages = 50
    @Option(help: "Seconds to wait for each set of answers.") var timeout = 60
    @Flag(help: "Print one result of each kind as JSON.") var show = false

    package init() {}

    /// A sample body of each kind, with its content type.
    static func sample(_ i: Int) -> (type: String, body: Data) {
        switch i % 3 {
        case 0:
            return ("application/json", Data(#"{"partner_params":{"job_id":"job-\#(i)","user_id":"user-\#(i)"}}"#.utf8))
        case 1:
            // A stored ZIP entry: the gateway encrypts the file as it is, never inflating it.
            var zip = Data("PK\u{03}\u{04}".utf8) + Data(repeating: 0, count: 26)
            zip += Data((0..<4096).map { UInt8(($0 * 31 + i) % 256) })
            return ("application/zip", zip)
        default:
            let boundary = "hallmark-traffic-\(i)"
            var body = try! MultipartBody(parsing: Array("--\(boundary)--\r\n".utf8), boundary: boundary)
            let jpeg: [UInt8] = [0xff, 0xd8, 0xff, 0xe0] + (0..<2048).map { UInt8(($0 + i) % 256) }
            body.parts = [
                .init(
                    field: "partner_params", contentType: "application/json",
                    body: Array(#"{"job_id":"job-\#(i)","user_id":"user-\#(i)"}"#.utf8)),
                .init(
                    rawHeaders: Array(
                        "Content-Disposition: form-data; name=\"selfie_image\"; filename=\"s.jpg\"\r\nContent-Type: image/jpeg"
                            .utf8), body: jpeg),
                .init(
                    rawHeaders: Array(
                        "Content-Disposition: form-data; name=\"liveness_images\"; filename=\"l.jpg\"\r\nContent-Type: image/jpeg"
                            .utf8), body: jpeg.reversed()),
                .init(field: "metadata", contentType: "application/json", body: Array(#"[{"name":"sdk","value":"cli"}]"#.utf8)),
            ]
            return ("multipart/form-data; boundary=\(boundary)", Data(body.bytes))
        }
    }

    package func run() async throws {
        var logger = Logger(label: "hallmark.traffic")
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        let c = try GatewayConfiguration.fromEnvironment(env)
        let kafka = try KafkaConfiguration.fromEnvironment(env)
        let producer = try KafkaProducer.cli(kafka, logger: logger)
        defer { Task { await producer.close() } }

        var requests = (0..<count).map { i in
            let (type, body) = Self.sample(i)
            return Message(
                EncryptRequest(
                    headers: ["Content-Type": type, "SmileID-Partner-ID": "sample-\(i % 4)"],
                    bodyB64: body.base64EncodedString(), method: "POST", path: "/v1/upload"))
        }
        var skipped = requests[0]
        skipped.header.id = MessageID.random()
        skipped.headers["SmileID-Skip-Encryption"] = "true"
        requests.append(skipped)
        let encrypted = try await TrafficExchange.run(
            kafka: kafka, output: c.encryptOutput, ids: requests.map(\.id),
            timeout: timeout, logger: logger
        ) {
            for r in requests {
                try await producer.send(
                    topic: c.encryptInput, key: r.headers["SmileID-Partner-ID"].map { Array($0.utf8) },
                    value: JSONCoding.encode(r))
            }
        }
        var tally: [String: Int] = [:]
        var decrypts: [(request: Message<DecryptRequest>, plaintext: String?)] = []
        var wrong = 0
        for r in requests {
            guard let bytes = encrypted[r.id] else { continue }
            guard let result = try? JSONCoding.decode(EncryptResult.self, from: bytes) else {
                // A refusal (the rejected form) or something unreadable: a sample must be encrypted.
                let refusal = try? JSONCoding.decode(CarrierRejection<EncryptResult>.self, from: bytes)
                print(String(decoding: bytes, as: UTF8.self))
                tally["rejected \(refusal?.reason.rawValue ?? "?")", default: 0] += 1
                wrong += 1
                continue
            }
            let kind = result.requestType?.rawValue ?? result.passthroughReason?.rawValue ?? "?"
            if show, tally[kind] == nil { print(String(decoding: bytes, as: UTF8.self)) }
            tally[kind, default: 0] += 1
            if r.id == skipped.id { wrong += result.decision == .passedThrough(.skipHeader) ? 0 : 1; continue }
            guard result.encrypted else { wrong += 1; continue }
            decrypts.append(
                (
                    Message(
                        DecryptRequest(
                            headers: result.headers, bodyB64: result.bodyB64, method: result.method, path: result.path)),
                    r.bodyB64
                ))
        }
        print(
            "encrypted \(encrypted.count)/\(requests.count) on \(c.encryptOutput): "
                + tally.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        guard encrypted.count == requests.count, wrong == 0, let first = decrypts.first else { throw ExitCode.failure }
        // A tampered copy: one byte of the first envelope changed.
        var tampered = first.request
        tampered.header.id = MessageID.random()
        var body = Data(base64Encoded: tampered.bodyB64)!
        body[body.count / 2] ^= 0x01
        tampered.bodyB64 = body.base64EncodedString()
        decrypts.append((tampered, nil))
        let answers = try await TrafficExchange.run(
            kafka: kafka, output: c.decryptOutput, ids: decrypts.map(\.request.id),
            timeout: timeout, logger: logger
        ) {
            for d in decrypts { try await producer.send(topic: c.decryptInput, key: nil, value: JSONCoding.encode(d.request)) }
        }
        var outcomes: [String: Int] = [:]
        for d in decrypts {
            guard let bytes = answers[d.request.id], let result = try? JSONCoding.decode(DecryptResult.self, from: bytes) else {
                continue
            }
            let outcome = result.reason?.rawValue ?? result.status.rawValue
            if show, outcomes[outcome] == nil { print(String(decoding: bytes, as: UTF8.self)) }
            outcomes[outcome, default: 0] += 1
            // Byte-exact plaintext for the genuine ones; a typed refusal (of any kind) for the tampered one.
            if let plaintext = d.plaintext {
                wrong += result.bodyB64 == plaintext ? 0 : 1
            } else {
                wrong += result.status == .rejected ? 0 : 1
            }
        }
        print(
            "decrypted \(answers.count)/\(decrypts.count) on \(c.decryptOutput): "
                + outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        wrong += try await sessions(c, kafka: kafka, producer: producer, messages: messages, logger: logger)
        if answers.count < decrypts.count || wrong > 0 {
            print("\(wrong) answers differ from the expected ones")
            throw ExitCode.failure
        }
    }
}
