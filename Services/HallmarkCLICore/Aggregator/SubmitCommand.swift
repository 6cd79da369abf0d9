import AggregatorCore
import ArgumentParser
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import Logging

/// `hallmark aggregator submit --camera F`: plays a provisioned camera (a file written by
/// `hallmark provision`) and submits one bundle to the running aggregator, then prints its
/// answer: a way to check a deployment by hand, one submission at a time.
package struct SubmitCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "submit", abstract: "Submit one camera bundle to the running aggregator and print its answer.")

    @Option(help: "The camera's provisioning file (from hallmark provision).") var camera: String
    @Option(help: "The image hash, 64 hex digits (random when absent).") var imageHash: String?
    @Option(
        help: "The body and token format: \(ProvisioningFile.SubmissionBody.allCases.map(\.rawValue).joined(separator: ", ")).")
    var body = "reference"
    @Option(help: "Seconds to wait for the answer.") var timeout = 60

    package init() {}

    package func run() async throws {
        var logger = Logger(label: "hallmark.submit")
        logger.logLevel = .warning
        guard let format = ProvisioningFile.SubmissionBody(rawValue: body) else {
            throw ValidationError("--body must be one of \(ProvisioningFile.SubmissionBody.allCases.map(\.rawValue))")
        }
        let hash = try imageHash ?? Hex.encode(SecureRandom.bytes(32))
        guard (try? Hex.decode(hash, length: 32)) != nil else { throw ValidationError("--image-hash must be 64 hex digits") }
        guard let contents = FileManager.default.contents(atPath: camera) else {
            throw ValidationError("cannot read \(camera)")
        }
        let file = try JSONCoding.decode(ProvisioningFile.self, from: Array(contents))
        let env = ProcessInfo.processInfo.environment
        let config = try AggregatorConfiguration.fromEnvironment(env)
        let kafka = try KafkaConfiguration.fromEnvironment(env)
        let producer = try KafkaProducer.cli(kafka, logger: logger)
        let watcher = try AnswerWatcher(kafka: kafka, topics: [config.submissionOutput], fromStart: false, logger: logger)
        let reader = Task { await watcher.run() }
        defer { reader.cancel() }
        try await watcher.waitUntilAssigned()
        let submission = try file.submission(
            format, hashes: [.init(imageHash: hash, modificationLevel: 0)], authorityID: config.authorityID)
        try await producer.send(
            topic: config.submissionInput, key: Array(submission.id.text.utf8), value: JSONCoding.encode(submission))
        let answer = await watcher.answer(for: submission.id, on: config.submissionOutput, timeout: .seconds(timeout))
        await watcher.close()
        _ = await producer.close()
        guard let answer else {
            print("no answer to \(submission.id.text) within \(timeout) s")
            throw ExitCode.failure
        }
        print(String(decoding: answer, as: UTF8.self))
    }
}
