import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkCrypto
import Logging
import ServiceLifecycle
import WitnessCore

/// `hallmark witness …`: a C2SP tlog-witness anyone can run, its key and its vkey.
package struct WitnessCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "witness", abstract: "A C2SP transparency-log witness: serve it, make its key, print its vkey.",
        subcommands: [WitnessServeCommand.self, WitnessKeyCommand.self, WitnessPublicKeyCommand.self])

    package init() {}

    /// The witness's vkey under `name`, from its key file.
    static func verifierKey(name: String, keyFile: String) throws -> NoteVerifierKey {
        let seed = try Ed25519SeedFile.read(keyFile, variable: WitnessConfiguration.variable(\.keyFile))
        return try NoteSigner(name: name, seed: seed, algorithm: .cosignatureV1).verifierKey
    }
}

/// `hallmark witness serve`: cosigns consistent growth of the logs it follows, over HTTP.
package struct WitnessServeCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the witness (HALLMARK_WITNESS_*: name, key file, logs file, state file, listen address).")

    package init() {}

    package func run() async throws {
        var logger = Logger(label: "hallmark.witness")
        logger.logLevel = .info
        let env = ProcessInfo.processInfo.environment
        let config = try WitnessConfiguration.fromEnvironment(env)
        guard let keyFile = config.keyFile else {
            throw ValidationError("set \(WitnessConfiguration.variable(\.keyFile)) (make one with hallmark witness key --out)")
        }
        guard let logsFile = config.logsFile, let logsText = try? String(contentsOfFile: logsFile, encoding: .utf8) else {
            throw ValidationError("set \(WitnessConfiguration.variable(\.logsFile)) to a readable file of 'log <vkey>' lines")
        }
        let logs = try WitnessConfiguration.logs(in: logsText, variable: WitnessConfiguration.variable(\.logsFile))
        let seed = try Ed25519SeedFile.read(keyFile, variable: WitnessConfiguration.variable(\.keyFile))
        let witness = try Witness(name: config.name, seed: seed, logs: logs, statePath: config.stateFile, logger: logger)
        let app = WitnessServer.application(witness, host: config.host, port: config.port, logger: logger) { [logger] port in
            logger.info(
                "witness serving",
                metadata: [
                    "vkey": "\(witness.verifierKey)", "port": "\(port)", "logs": "\(logs.map(\.name).joined(separator: " "))",
                ])
        }
        let group = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}

/// `hallmark witness key --out F`: makes the witness's key (never overwrites) and prints its vkey.
package struct WitnessKeyCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "key", abstract: "Make a new witness key file (mode 0600) and print its vkey.")

    @Option(help: "Where to write the private key; an existing file is never overwritten.") var out: String
    @Option(help: "The witness's name (default: HALLMARK_WITNESS_NAME).") var name: String?

    package init() {}

    package func run() async throws {
        let name = try name ?? WitnessConfiguration.fromEnvironment(ProcessInfo.processInfo.environment).name
        try Ed25519SeedFile.write(
            try Ed25519.generate().seed, to: out,
            comment: "Hallmark witness key (private): cosigns transparency logs' checkpoints.")
        print("vkey=\(try WitnessCommand.verifierKey(name: name, keyFile: out))")
    }
}

/// `hallmark witness public-key`: the witness's vkey, for logs' policies and verifiers.
package struct WitnessPublicKeyCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "public-key", abstract: "Print the witness's vkey (C2SP, type 0x04); the private key is never printed.")

    @Option(help: "The key file (default: HALLMARK_WITNESS_KEY_FILE).") var keyFile: String?
    @Option(help: "The witness's name (default: HALLMARK_WITNESS_NAME).") var name: String?

    package init() {}

    package func run() async throws {
        let config = try WitnessConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        guard let path = keyFile ?? config.keyFile else {
            throw ValidationError("give --key-file or set HALLMARK_WITNESS_KEY_FILE")
        }
        print("vkey=\(try WitnessCommand.verifierKey(name: name ?? config.name, keyFile: path))")
    }
}
