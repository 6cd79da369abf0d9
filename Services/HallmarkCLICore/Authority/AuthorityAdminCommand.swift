import ArgumentParser
import AuthorityCore
import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import Logging

/// `hallmark authority admin <blacklist|unblacklist|retire-table|rotate-kek>`: publishes a
/// `hallmark.authority.admin.v1` command for the running authority.
public struct AuthorityAdminCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Send an admin command to the running authority.")

    @Argument(help: "blacklist, unblacklist, retire-table or rotate-kek.") var action: String
    @Option(help: "Device serial (blacklist, unblacklist).") var serial: String?
    @Option(help: "Key table id (retire-table).") var table: Int?
    @Option(help: "Why (recorded with the change).") var reason: String?

    public init() {}

    public func run() async throws {
        guard let command = AdminCommand.Action(rawValue: action.replacingOccurrences(of: "-", with: "_")) else {
            throw ValidationError("unknown action \(action)")
        }
        var logger = Logger(label: "hallmark.authority.admin")
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        let config = try AuthorityConfiguration.fromEnvironment(env)
        let producer = try KafkaProducer(configuration: try KafkaConfiguration.fromEnvironment(env), logger: logger)
        let message = AdminCommand(id: MessageID.random(), producedAt: Timestamp.now(), command: command,
                                   deviceSerial: serial, tableId: table, reason: reason)
        try await producer.send(topic: config.adminInput, key: serial.map { Array($0.utf8) },
                                value: try JSONCoding.encode(message))
        _ = await producer.close()
        print("sent \(command.rawValue) (id \(message.id)) to \(config.adminInput)")
    }
}
