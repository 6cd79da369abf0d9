import AggregatorCore
import ArgumentParser
import AuthorityCore
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import Logging

/// `hallmark traffic aggregator`: provisions a camera with the running authority, submits
/// bundles in every body and token format through the running aggregator, then a duplicate, a
/// repeat of one submission id, a tampered token and a foreign authority; and verifies every
/// accepted hash against the signed log, offline, with the aggregator's public key.
package struct AggregatorTrafficCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "aggregator", abstract: "Submit sample camera bundles to the running aggregator and verify them.")

    @Option(help: "Bundles per body and token format.") var count = 4
    @Option(help: "Seconds to wait for the answers.") var timeout = 60

    package init() {}

    package func run() async throws {
        var logger = Logger(label: "hallmark.traffic")
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        let authority = try AuthorityConfiguration.fromEnvironment(env)
        let config = try AggregatorConfiguration.fromEnvironment(env)
        // The operator's sample checks its answers with the key it runs the log with.
        let publicKey = try Self.checkpointKey(env: env)
        let kafka = try KafkaConfiguration.fromEnvironment(env)
        let producer = try KafkaProducer.cli(kafka, logger: logger)
        let watcher = try AnswerWatcher(
            kafka: kafka, topics: [authority.provisionOutput, config.submissionOutput, config.verifyOutput],
            fromStart: false, logger: logger)
        let reader = Task { await watcher.run() }
        defer { reader.cancel() }
        try await watcher.waitUntilAssigned()
        let serial = "SAMPLE-\(UInt32.random(in: 0...UInt32.max))"
        guard
            case .provisioned(let cam) = try await CameraProvisioner(
                producer: producer, watcher: watcher, topic: authority.provisionInput
            )
            .provision(serial: serial, family: "sample", timeout: .seconds(timeout))
        else {
            print("provisioning \(serial) was rejected")
            throw ExitCode.failure
        }
        print(
            "provisioned \(serial); submitting \(count) bundles in each of \(ProvisioningFile.SubmissionBody.allCases.count) bodies"
        )

        func submit(_ s: Message<Submission>) async throws -> SubmissionResult? {
            try await producer.send(topic: config.submissionInput, key: Array(s.id.text.utf8), value: JSONCoding.encode(s))
            guard let bytes = await watcher.answer(for: s.id, on: config.submissionOutput, timeout: .seconds(timeout)) else {
                return nil
            }
            return try? JSONCoding.decode(SubmissionResult.self, from: bytes)
        }
        var sent: [(Message<Submission>, ProvisioningFile.SubmissionBody)] = []
        for body in ProvisioningFile.SubmissionBody.allCases {
            for _ in 0..<count {
                // A raw capture, and (where the body holds two) the image processed from it.
                var hashes: [Submission.ImageHash] = []
                for level in 0..<(body == .flatBundle ? 1 : 2) {
                    hashes.append(
                        .init(
                            imageHash: Hex.encode(try SecureRandom.bytes(32)), modificationLevel: level,
                            parentImageHash: hashes.last?.imageHash))
                }
                let s = try cam.submission(body, hashes: hashes, authorityID: config.authorityID)
                try await producer.send(topic: config.submissionInput, key: Array(s.id.text.utf8), value: JSONCoding.encode(s))
                sent.append((s, body))
            }
        }
        var accepted: [String] = []
        var failures = 0
        for (s, body) in sent {
            guard let bytes = await watcher.answer(for: s.id, on: config.submissionOutput, timeout: .seconds(timeout)),
                let result = try? JSONCoding.decode(SubmissionResult.self, from: bytes), result.status == .accepted
            else {
                print("  \(body.rawValue): not accepted")
                failures += 1
                continue
            }
            accepted += result.leaves?.map(\.imageHash) ?? []
        }
        print("accepted: \(sent.count - failures)/\(sent.count) bundles, \(accepted.count) hashes logged")

        let again = try cam.submission(
            .reference, hashes: [.init(imageHash: accepted[0], modificationLevel: 0)], authorityID: config.authorityID)
        let duplicate = try await submit(again)
        print(
            "a logged hash again: \(duplicate?.status.rawValue ?? "no answer") (leaf \(duplicate?.leaves?.first?.leafIndex ?? 0))"
        )
        let repeatAnswer = watcher.answers(for: again.id).count
        try await producer.send(topic: config.submissionInput, key: nil, value: JSONCoding.encode(again))
        let repeated = await watcher.wait(timeout: .seconds(timeout)) { $0.answers(for: again.id).count > repeatAnswer }
        let same = Set(watcher.answers(for: again.id)).count == 1
        print("the same submission id again: \(repeated ? (same ? "the same answer" : "a different answer") : "no answer")")
        var tampered = try cam.submission(
            .reference, hashes: [.init(imageHash: Hex.encode(try SecureRandom.bytes(32)), modificationLevel: 0)])
        let tag = tampered.cameraToken!.authTag
        tampered.cameraToken?.authTag = String(tag.reversed())
        let tamperedAnswer = try await submit(tampered)
        print("tampered token: \(tamperedAnswer?.status.rawValue ?? "no answer") \(tamperedAnswer?.reason?.rawValue ?? "")")
        let foreign = try cam.submission(
            .cameraSubmission, hashes: [.init(imageHash: Hex.encode(try SecureRandom.bytes(32)), modificationLevel: 0)],
            authorityID: "SOMEONE_ELSE")
        let foreignAnswer = try await submit(foreign)
        print("another authority: \(foreignAnswer?.status.rawValue ?? "no answer") \(foreignAnswer?.reason?.rawValue ?? "")")

        let log = LogQuestion(
            producer: producer, watcher: watcher, requests: config.verifyInput, results: config.verifyOutput,
            timeout: .seconds(timeout))
        var verified = 0
        for hash in accepted {
            if let answer = try await log.inclusion(hash), answer.status == .found,
                case .success = answer.check(publicKey: publicKey, imageHash: hash)
            {
                verified += 1
            }
        }
        print("verified offline with the public key: \(verified)/\(accepted.count) inclusion proofs")
        let unknown = Hex.encode(try SecureRandom.bytes(32))
        let missing = try await log.inclusion(unknown)
        print("an unknown hash: \(missing?.status.rawValue ?? "no answer")")
        await watcher.close()
        _ = await producer.close()
        if failures > 0 || duplicate?.status != .duplicate || !repeated || !same
            || tamperedAnswer?.reason != .authenticationFailed
            || foreignAnswer?.reason != .unknownAuthority || verified != accepted.count || missing?.status != .notFound
        {
            throw ExitCode.failure
        }
    }

    /// The checkpoint key the sample's answers are checked with: the verifiers' configured key,
    /// else the public half of the signing key this machine runs the aggregator with (the
    /// sample is the operator's own tool; `hallmark verify` never falls back to it).
    static func checkpointKey(env: [String: String]) throws -> Data {
        let settings = Settings(env)
        if try settings.value(CLIVariables.aggregatorPublicKey) != nil || settings.value(CLIVariables.aggregatorVKey) != nil {
            return try VerifierTrust.resolve(publicKey: nil, vkey: nil, env: env).publicKey
        }
        guard let path = try AggregatorConfiguration.value(\.signingKeyFile, in: settings) else {
            throw ValidationError("set HALLMARK_AGGREGATOR_PUBLIC_KEY or HALLMARK_AGGREGATOR_SIGNING_KEY_FILE")
        }
        return try CheckpointSigningKey.load(path).publicKey
    }
}
