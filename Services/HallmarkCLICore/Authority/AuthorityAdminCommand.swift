import ArgumentParser
import AuthorityCore
import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import Logging

/// `hallmark authority admin <blacklist|unblacklist|retire-table|rotate-kek>`: publishes a
/// `hallmark.authority.admin.v1` command for the running authority, signed with an operator
/// key (`--operator-key FILE` or `HALLMARK_OPERATOR_KEY_FILE`; see ``OperatorKeyCommand``).
package struct AuthorityAdminCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Send a signed admin command to the running authority.")

    @Argument(help: "blacklist, unblacklist, retire-table or rotate-kek.") var action: String
    @Option(help: "Device serial (blacklist, unblacklist).") var serial: String?
    @Option(help: "Key table id (retire-table).") var table: Int?
    @Option(help: "Why (recorded with the change).") var reason: String?
    @Option(help: "The operator's private key file (default: HALLMARK_OPERATOR_KEY_FILE).") var operatorKey: String?

    package init() {}

    package func run() async throws {
        guard let command = AdminCommand.Action(rawValue: action.replacingOccurrences(of: "-", with: "_")) else {
            throw ValidationError("unknown action \(action)")
        }
        let env = ProcessInfo.processInfo.environment
        guard let keyPath = try operatorKey ?? Settings(env).value(CLIVariables.operatorKeyFile) else {
            throw ValidationError(
                "admin commands are signed: pass --operator-key FILE or set \(CLIVariables.operatorKeyFile.name)")
        }
        let key = try OperatorKeyFile.load(keyPath)
        var logger = Logger(label: "hallmark.authority.admin")
        logger.logLevel = .warning
        let config = try AuthorityConfiguration.fromEnvironment(env)
        let producer = try KafkaProducer.cli(try KafkaConfiguration.fromEnvironment(env), logger: logger)
        let message = try key.sign(
            Message(AdminCommand(command: command, deviceSerial: serial, tableId: table, reason: reason)))
        try await producer.send(
            topic: config.adminInput, key: serial.map { Array($0.utf8) },
            value: try JSONCoding.encode(message))
        _ = await producer.close()
        print("sent \(command.rawValue) (id \(message.id), signed by \(key.keyID)) to \(config.adminInput)")
    }
}

/// `hallmark authority operator-key --out FILE`: makes an operator's Ed25519 key pair for
/// signing admin commands. The private key goes to a new file (mode 0600) and is never
/// printed; stdout gets only the public entry for the authority's
/// `HALLMARK_AUTHORITY_OPERATOR_KEYS_FILE`.
package struct OperatorKeyCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "operator-key",
        abstract: "Make an operator key pair for admin commands; prints only the public key entry.")

    @Option(help: "Where to write the private key (a new file).") var out: String
    @Option(help: "The key's id (1-64 of A-Z a-z 0-9 . _ -).") var keyId = "operator"

    package init() {}

    package func run() async throws {
        let key = try OperatorKeyFile.generate(keyID: keyId)
        try key.write(to: out)
        print(try key.publicEntry)
    }
}
