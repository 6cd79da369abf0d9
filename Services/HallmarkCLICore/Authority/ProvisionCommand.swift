import HallmarkClient
import ArgumentParser
import AuthorityCore
import Foundation
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import Logging

/// `hallmark provision --serial S`: plays the camera end to end and writes the
/// provisioning file (mode 0600; it holds the table keys and the NUC hash).
package struct ProvisionCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "provision", abstract: "Provision a camera with the running authority (plays the camera).")

    @Option(help: "The camera's serial.") var serial: String
    @Option(help: "The camera's NUC hash, 64 hex digits (random when absent).") var nucHash: String?
    @Option(help: "Device family.") var family: String?
    @Flag(help: "Certificate mode: make a P-256 signing key and ask for the camera's X.509 certificate.")
    var certificate = false
    @Option(help: "Where to write the provisioning file (default <serial>.provisioning.json).") var out: String?
    @Option(help: "Seconds to wait for the answer.") var timeout = 60

    package init() {}

    package func run() async throws {
        var logger = Logger(label: "hallmark.provision")
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        let config = try AuthorityConfiguration.fromEnvironment(env)
        let kafka = try KafkaConfiguration.fromEnvironment(env)
        let nuc = try nucHash.map { hex -> Data in
            guard let d = try? Hex.decode(hex, length: 32) else { throw ValidationError("--nuc-hash must be 64 hex digits") }
            return d
        }
        let producer = try KafkaProducer.cli(kafka, logger: logger)
        let watcher = try AnswerWatcher(kafka: kafka, topics: [config.provisionOutput], fromStart: false, logger: logger)
        let reader = Task { await watcher.run() }
        defer { reader.cancel() }
        try await watcher.waitUntilAssigned()
        let outcome = try await CameraProvisioner(producer: producer, watcher: watcher, topic: config.provisionInput)
            .provision(serial: serial, nucHash: nuc, family: family, certificate: certificate, timeout: .seconds(timeout))
        await watcher.close()
        _ = await producer.close()
        switch outcome {
        case .rejected(let reason):
            print("provisioning of \(serial) rejected: \(reason)")
            throw ExitCode.failure
        case .provisioned(let file):
            let path = out ?? "\(serial).provisioning.json"
            guard
                FileManager.default.createFile(
                    atPath: path, contents: Data(try JSONCoding.encode(file)),
                    attributes: [.posixPermissions: 0o600])
            else {
                throw AuthorityClientError(.io, "cannot write the provisioning file")
            }
            let mode = file.deviceCertificate == nil ? "" : "; its certificate and signing key are in it"
            print(
                "provisioned \(serial): tables \(file.tableAssignments.map(String.init).joined(separator: ", ")); wrote \(path)\(mode)"
            )
        }
    }
}
