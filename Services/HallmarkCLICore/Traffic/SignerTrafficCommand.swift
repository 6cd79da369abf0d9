import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import Logging
import SignerCore

/// `hallmark traffic signer`: sign requests through the running signer, then their results
/// as verify requests (stages chain), plus a tampered copy and a replay; checks every verdict.
package struct SignerTrafficCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "signer",
        abstract: "Sign sample requests, verify the signed ones, a tampered one and a replay; wait for every answer.")

    @Option(help: "Sign requests to send (each is verified afterwards).") var count = 20
    @Option(help: "Seconds to wait for each set of answers.") var timeout = 60
    @Flag(help: "Print one sign result and each kind of verify result as JSON.") var show = false

    package init() {}

    package func run() async throws {
        var logger = Logger(label: "hallmark.traffic")
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        let c = try SignerConfiguration.fromEnvironment(env)
        let kafka = try KafkaConfiguration.fromEnvironment(env)
        let producer = try KafkaProducer.cli(kafka, logger: logger)
        defer { Task { await producer.close() } }

        let signIDs = (0..<count).map { _ in MessageID.random() }
        let signed = try await TrafficExchange.run(
            kafka: kafka, output: c.signOutput, ids: signIDs, timeout: timeout, logger: logger
        ) {
            for (i, id) in signIDs.enumerated() {
                let request = Message(
                    SignRequest(
                        headers: [
                            "Content-Type": "application/json", "SmileID-Partner-ID": "sample-\(i % 4)",
                            "SmileID-Source-SDK": "hallmark-cli", "SmileID-Source-SDK-Version": "1.0.0",
                        ], bodyB64: Data(#"{"job_id":"job-\#(i)","user_id":"user-\#(i)"}"#.utf8).base64EncodedString()),
                    id: id)
                try await producer.send(topic: c.signInput, key: Array("sample-\(i % 4)".utf8), value: JSONCoding.encode(request))
            }
        }
        print("signed \(signed.count)/\(count) on \(c.signOutput)")
        if show, let first = signed.values.first { print(String(decoding: first, as: UTF8.self)) }
        guard signed.count == count else { throw ExitCode.failure }

        // Each sign result is a valid verify request body: same headers + body_b64 shape.
        var verify: [(id: MessageID, expected: String, value: [UInt8], key: String)] = []
        for (i, id) in signIDs.enumerated() {
            let object = try JSONSerialization.jsonObject(with: Data(signed[id]!)) as! [String: Any]
            let headers = object["headers"] as? [String: String] ?? [:]
            let partner = headers["SmileID-Partner-ID"] ?? ""
            func request(_ expected: String, _ edit: (inout [String: Any]) -> Void) throws {
                let newID = MessageID.random()
                // Only the verify request's fields: the result's own ids do not travel on.
                var o: [String: Any] = [
                    "schema": VerifyRequest.schemaName, "id": newID.text, "produced_at": Timestamp.now().text,
                    "method": "POST", "path": "/v1/submit_job", "headers": object["headers"] ?? [:],
                    "body_b64": object["body_b64"] ?? "",
                ]
                edit(&o)
                verify.append((newID, expected, Array(try JSONSerialization.data(withJSONObject: o)), partner))
            }
            try request("accepted") { _ in }
            if i == 0 {
                try request("replay") { _ in }
                try request("bad_mac") { $0["body_b64"] = Data(#"{"job_id":"tampered"}"#.utf8).base64EncodedString() }
            }
        }
        let verdicts = try await TrafficExchange.run(
            kafka: kafka, output: c.verifyOutput, ids: verify.map(\.id),
            timeout: timeout, logger: logger
        ) {
            for v in verify { try await producer.send(topic: c.verifyInput, key: Array(v.key.utf8), value: v.value) }
        }
        var tally: [String: Int] = [:]
        var wrong = 0
        var shown = Set<String>()
        for v in verify {
            guard let value = verdicts[v.id],
                let result = try? JSONSerialization.jsonObject(with: Data(value)) as? [String: Any]
            else { continue }
            let outcome = (result["reason"] as? String) ?? (result["verdict"] as? String ?? "?")
            tally[outcome, default: 0] += 1
            if outcome != v.expected { wrong += 1 }
            if show, shown.insert(outcome).inserted { print(String(decoding: value, as: UTF8.self)) }
        }
        print(
            "verified \(verdicts.count)/\(verify.count) on \(c.verifyOutput): \(tally.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
        )
        if verdicts.count < verify.count || wrong > 0 {
            print("\(wrong) verdicts differ from the expected ones")
            throw ExitCode.failure
        }
    }
}
