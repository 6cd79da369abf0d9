import HallmarkClient
import ArgumentParser
import AuthorityCore
import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import HallmarkPostgres
import HallmarkRuntime
import Logging

/// `hallmark authority …`: key tables, secrets and admin commands of the key-table authority.
package struct AuthorityCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "authority", abstract: "Birthmark key-table authority: tables, secrets, admin commands.",
        subcommands: [
            GenerateTablesCommand.self, InitSecretsCommand.self, AuthorityAdminCommand.self,
            OperatorKeyCommand.self, AuthorityStatusCommand.self, CertificateAuthorityCommand.self,
        ])

    /// The authority's own database role first (its tables live in its schema), then the
    /// shared variable.
    static let postgresURLVariables = ["HALLMARK_AUTHORITY_POSTGRES_URL", PostgresConfiguration.urlVariable]

    /// What a maintenance command runs with: the authority's settings and secrets (its KEK), and
    /// its database, migrated. The caller closes the pool.
    static func maintenance(
        _ label: String
    ) async throws -> (config: AuthorityConfiguration, secrets: AuthoritySecrets, pool: PostgresPool) {
        var logger = Logger(label: label)
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        let config = try AuthorityConfiguration.fromEnvironment(env)
        let secrets = try AuthoritySecrets.fromEnvironment(env)
        let pool = PostgresPool(
            configuration: try PostgresConfiguration.fromEnvironment(env, urlVariables: postgresURLVariables), logger: logger)
        do {
            try await StageDatabase(pool: pool, schema: config.schema).migrate(
                AuthorityMigrations.all(schema: config.schema), logger: logger)
        } catch {
            pool.close()
            throw error
        }
        return (config, secrets, pool)
    }

    package init() {}
}

/// `hallmark authority generate-tables --count N`: resumable, with a progress bar on stderr.
package struct GenerateTablesCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "generate-tables",
        abstract: "Generate key tables 0..<count (sealed under the KEK); interrupt and rerun to resume.")

    @Option(help: "Number of key tables.") var count = 2500

    package init() {}

    package func run() async throws {
        let (config, secrets, pool) = try await AuthorityCommand.maintenance("hallmark.authority.tables")
        defer { pool.close() }
        let created = try await TableGenerator(pool: pool, schema: config.schema, secrets: secrets)
            .generate(count: count) { done, total in ProgressBar.draw(done: done, total: total) }
        FileHandle.standardError.write(Data("\n".utf8))
        print("key tables: \(count) present, \(created) created now")
    }
}

/// `hallmark authority init-secrets --file F`: writes a development KEK + index key file if missing.
package struct InitSecretsCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "init-secrets", abstract: "Write a development secrets file (KEK v1 + index key) if missing.")

    @Option(help: "Path of the secrets file.") var file: String

    package init() {}

    package func run() async throws {
        if FileManager.default.fileExists(atPath: file) {
            print("secrets file already present")
            return
        }
        let url = URL(fileURLWithPath: file)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        guard
            FileManager.default.createFile(
                atPath: file, contents: Data(try AuthoritySecrets.generateText().utf8),
                attributes: [.posixPermissions: 0o600])
        else {
            throw AuthorityClientError(.io, "cannot write the secrets file")
        }
        print("wrote a development secrets file")
    }
}

/// Draws `[#####.....] done/total` on stderr.
enum ProgressBar {
    static func draw(done: Int, total: Int) {
        let width = 30
        let filled = total == 0 ? width : done * width / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let percent = total == 0 ? 100 : done * 100 / total
        FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total) (\(percent)%)".utf8))
    }
}
