import ArgumentParser
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkRuntime
import Logging

/// `hallmark privacy export|erase --device S | --partner P | --session X`: sends a signed
/// privacy request, gathers every answering service's result, and prints one JSON document
/// saying which services answered. Exit status 0 when every expected service answered and
/// none refused, 1 when one did not answer in time, 2 when one refused.
package struct PrivacyCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "privacy", abstract: "Export or erase what Hallmark holds about a camera, partner or session.",
        subcommands: [PrivacyExportCommand.self, PrivacyEraseCommand.self])

    package init() {}

    /// The services that answer requests about each subject type.
    static let answering: [PrivacyRequest.SubjectType: [String]] = [
        .deviceSerial: ["authority"], .partnerID: ["signer"],
        .sessionID: ["gateway"],
    ]
}

/// `hallmark privacy export`.
package struct PrivacyExportCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Everything held about the subject, as JSON.")
    @OptionGroup var options: PrivacyOptions
    package init() {}
    package func run() async throws { try await options.send(.export) }
}

/// `hallmark privacy erase`.
package struct PrivacyEraseCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "erase",
        abstract: "Erase what is held about the subject; say what outlives it.")
    @OptionGroup var options: PrivacyOptions
    package init() {}
    package func run() async throws { try await options.send(.erase) }
}

/// The subject, the signing key and the wait.
package struct PrivacyOptions: ParsableArguments {
    @Option(help: "A camera's serial.") var device: String?
    @Option(help: "A SmileID partner id.") var partner: String?
    @Option(help: "An E2EE session id.") var session: String?
    @Option(help: "Why (a ticket, say); recorded in the audit trail.") var reason: String?
    @Option(help: "The operator's private key file (default: HALLMARK_OPERATOR_KEY_FILE).") var operatorKey: String?
    @Option(help: "Services expected to answer, comma-separated (default: every service that holds the subject type).")
    var services: String?
    @Option(help: "Seconds to wait for every answer.") var timeout = 30

    package init() {}

    package func validate() throws {
        guard [device, partner, session].compactMap({ $0 }).count == 1 else {
            throw ValidationError("give exactly one of --device, --partner and --session")
        }
    }

    var subject: (PrivacyRequest.SubjectType, String) {
        if let device { return (.deviceSerial, device) }
        if let partner { return (.partnerID, partner) }
        return (.sessionID, session!)
    }

    func send(_ action: PrivacyRequest.Action) async throws {
        var logger = Logger(label: "hallmark.privacy")
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        let (type, value) = subject
        let expected = services.map { $0.split(separator: ",").map(String.init) } ?? PrivacyCommand.answering[type] ?? []
        guard !expected.isEmpty else {
            throw ValidationError("no service answers privacy requests about a \(type.rawValue) yet; name them with --services")
        }
        guard let keyPath = try operatorKey ?? Settings(env).value(CLIVariables.operatorKeyFile) else {
            throw ValidationError(
                "privacy requests are signed: pass --operator-key FILE or set \(CLIVariables.operatorKeyFile.name)")
        }
        let key = try OperatorKeyFile.load(keyPath)
        let topics = try PrivacyTopics.fromEnvironment(env)
        let request = try key.sign(
            Message(PrivacyRequest(action: action, subjectType: type, subject: value, reason: reason)))
        let kafka = try KafkaConfiguration.fromEnvironment(env)
        let producer = try KafkaProducer.cli(kafka, logger: logger)
        let watcher = try AnswerWatcher(kafka: kafka, topics: [topics.results], fromStart: false, logger: logger)
        let reader = Task { await watcher.run() }
        defer { reader.cancel() }
        try await watcher.waitUntilAssigned()
        try await producer.send(topic: topics.requests, key: Array(value.utf8), value: try JSONCoding.encode(request))
        @Sendable func results() -> [Message<PrivacyResult>] {
            watcher.answers(for: request.id).compactMap { try? JSONCoding.decode(Message<PrivacyResult>.self, from: $0) }
        }
        _ = await watcher.wait(timeout: .seconds(timeout)) { _ in Set(results().map(\.service)).isSuperset(of: expected) }
        let gathered = Dictionary(results().map { ($0.service, $0) }) { first, _ in first }
        await watcher.close()
        _ = await producer.close()
        let missing = expected.filter { gathered[$0] == nil }
        let document: [String: Any] = [
            "request_id": request.id.text, "action": action.rawValue, "subject_type": type.rawValue,
            "answered": gathered.keys.sorted(), "missing": missing,
            "results": try gathered.keys.sorted().map {
                try JSONSerialization.jsonObject(with: Data(try JSONCoding.encode(gathered[$0]!)))
            },
        ]
        print(
            String(
                decoding: try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys]),
                as: UTF8.self))
        if gathered.values.contains(where: { $0.status == .rejected }) { throw ExitCode(2) }
        if !missing.isEmpty { throw ExitCode(1) }
    }
}
