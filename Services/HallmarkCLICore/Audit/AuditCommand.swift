import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkPostgres
import HallmarkRuntime
import Logging

/// `hallmark audit`: a service's tamper-evident audit trail.
public struct AuditCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "A service's hash-chained audit trail.",
        subcommands: [AuditVerifyCommand.self])

    public init() {}
}

/// `hallmark audit verify --service S`: reads the service's audit table and checks the chain
/// record by record; an edited, inserted or deleted record is reported with its position, and
/// the command exits 1.
public struct AuditVerifyCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a service's audit chain; report the first edited or deleted record.",
        discussion: """
            Connects with HALLMARK_<SERVICE>_POSTGRES_URL (else HALLMARK_POSTGRES_URL) to the \
            schema HALLMARK_<SERVICE>_SCHEMA (else the service's name). Exit status 0: intact; \
            1: broken.
            """)

    @Option(help: "The service: signer, gateway, authority or aggregator.")
    var service: String

    @Option(help: "The schema (default: HALLMARK_<SERVICE>_SCHEMA, else the service's name).")
    var schema: String?

    public init() {}

    public func run() async throws {
        var logger = Logger(label: "hallmark.audit")
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        let prefix = "HALLMARK_\(service.uppercased().replacingOccurrences(of: "-", with: "_"))"
        let schema = try self.schema ?? Settings(env).identifier("\(prefix)_SCHEMA", default: service)
        let pool = PostgresPool(configuration: try PostgresConfiguration.fromEnvironment(
            env, urlVariables: ["\(prefix)_POSTGRES_URL", PostgresConfiguration.urlVariable]), logger: logger)
        defer { pool.close() }
        let check = try await AuditChainCheck.run(schema: schema, pool: pool)
        if let problem = check.problem {
            print("audit trail of \(service) (schema \(schema)): BROKEN at record \(problem.sequence): \(problem)")
            print("records read: \(check.records); the head says \(check.headSequence)")
            throw ExitCode.failure
        }
        print("audit trail of \(service) (schema \(schema)): intact, \(check.records) records, "
              + "head \(check.headSequence) \(check.headHash)")
    }
}
