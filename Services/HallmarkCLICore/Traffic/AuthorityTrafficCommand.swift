import HallmarkClient
import ArgumentParser
import AuthorityCore
import Foundation
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import Logging

/// `hallmark traffic authority`: provisions a camera with the running authority, then sends
/// genuine tokens in both formats, a tampered one and a replay, and prints the verdicts.
package struct AuthorityTrafficCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "authority", abstract: "Provision a camera and validate sample tokens with the running authority.")

    @Option(help: "Genuine tokens to validate.") var count = 20
    @Option(help: "Seconds to wait for each answer.") var timeout = 60

    package init() {}

    package func run() async throws {
        var logger = Logger(label: "hallmark.traffic")
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        let config = try AuthorityConfiguration.fromEnvironment(env)
        let kafka = try KafkaConfiguration.fromEnvironment(env)
        let producer = try KafkaProducer.cli(kafka, logger: logger)
        let watcher = try AnswerWatcher(
            kafka: kafka, topics: [config.provisionOutput, config.tokenOutput],
            fromStart: false, logger: logger)
        let reader = Task { await watcher.run() }
        defer { reader.cancel() }
        try await watcher.waitUntilAssigned()
        let serial = "SAMPLE-\(UInt32.random(in: 0...UInt32.max))"
        let outcome = try await CameraProvisioner(producer: producer, watcher: watcher, topic: config.provisionInput)
            .provision(serial: serial, family: "sample", timeout: .seconds(timeout))
        guard case .provisioned(let cam) = outcome else {
            print("provisioning \(serial) was rejected")
            throw ExitCode.failure
        }
        print("provisioned \(serial) with tables \(cam.tableAssignments)")

        func verdict(_ bytes: [UInt8], id: MessageID) async throws -> String {
            try await producer.send(topic: config.tokenInput, key: Array(serial.utf8), value: bytes)
            guard let answer = await watcher.answer(for: id, on: config.tokenOutput, timeout: .seconds(timeout)),
                let result = try? JSONDecoder().decode(TokenResult.self, from: Data(answer))
            else { return "no answer" }
            return result.valid ? "PASS" : "FAIL \(result.reason?.rawValue ?? "?")"
        }
        var passes = 0
        for i in 0..<count {
            let id = MessageID.random()
            let bytes =
                i % 2 == 0
                ? try ProvisioningFile.requestBytes(cam.referenceRequest().token, id: id)
                : try ProvisioningFile.requestBytes(cam.mobileToken(), id: id)
            if try await verdict(bytes, id: id) == "PASS" { passes += 1 }
        }
        print("genuine tokens (both formats): \(passes)/\(count) PASS")
        var tampered = try cam.referenceRequest().token
        tampered.authTag = String(tampered.authTag.reversed())
        let tamperedID = MessageID.random()
        let tamperedVerdict = try await verdict(try ProvisioningFile.requestBytes(tampered, id: tamperedID), id: tamperedID)
        print("tampered tag: \(tamperedVerdict)")
        let token = try cam.referenceRequest().token
        let (firstID, secondID) = (MessageID.random(), MessageID.random())
        let first = try await verdict(try ProvisioningFile.requestBytes(token, id: firstID), id: firstID)
        let replay = try await verdict(try ProvisioningFile.requestBytes(token, id: secondID), id: secondID)
        print("a token sent twice: \(first), then \(replay)")
        await watcher.close()
        _ = await producer.close()
        if passes < count || !tamperedVerdict.hasPrefix("FAIL") || replay != "FAIL replayed_token" { throw ExitCode.failure }
    }
}
