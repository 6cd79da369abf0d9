import ArgumentParser
import AuthorityCore
import Foundation
import HallmarkPostgres
import Logging

/// `hallmark authority status`: key tables, devices and which KEK version their rows are
/// sealed under (an old `kek.N` can go once no row uses it). Counts only, no secrets.
package struct AuthorityStatusCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Key tables, devices, and rows per KEK version.")

    package init() {}

    package func run() async throws {
        var logger = Logger(label: "hallmark.authority.status")
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        let schema = try AuthorityConfiguration.fromEnvironment(env).schema
        let pool = PostgresPool(
            configuration: try PostgresConfiguration.fromEnvironment(env, urlVariables: AuthorityCommand.postgresURLVariables),
            logger: logger)
        defer { pool.close() }
        let tables = try await pool.query(
            """
            SELECT count(*)::bigint, count(*) FILTER (WHERE retired)::bigint FROM \(unescaped: schema).key_tables
            """)
        let (tableCount, retired) = try tables[0].decode((Int64, Int64).self)
        let devices = try await pool.query(
            """
            SELECT count(*)::bigint, count(*) FILTER (WHERE blacklisted)::bigint FROM \(unescaped: schema).devices
            """)
        let (deviceCount, blacklisted) = try devices[0].decode((Int64, Int64).self)
        print("key tables: \(tableCount) (\(retired) retired)")
        print("devices: \(deviceCount) (\(blacklisted) blacklisted)")
        let versions = try await pool.query(
            """
            SELECT kek_version, count(*)::bigint FROM (
                SELECT kek_version FROM \(unescaped: schema).key_tables
                UNION ALL SELECT kek_version FROM \(unescaped: schema).devices) rows
            GROUP BY kek_version ORDER BY kek_version
            """)
        for (version, count) in try versions.decode((Int64, Int64).self) {
            print("rows sealed under kek.\(version): \(count)")
        }
    }
}
