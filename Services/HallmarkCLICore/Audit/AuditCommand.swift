import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import Logging

/// `hallmark audit`: a service's tamper-evident audit trail.
package struct AuditCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "audit", abstract: "A service's hash-chained audit trail.",
        subcommands: [AuditVerifyCommand.self])

    package init() {}
}

/// `hallmark audit verify --service S`: reads the service's audit table and checks the chain
/// record by record; an edited, inserted or deleted record is reported with its position, and
/// the command exits 1. Then it compares the table with the copy the service published on the
/// audit topic, which catches a table rewritten into a chain that checks.
package struct AuditVerifyCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a service's audit chain; report the first edited or deleted record.",
        discussion: """
            Connects with HALLMARK_<SERVICE>_POSTGRES_URL (else HALLMARK_POSTGRES_URL) to the \
            schema HALLMARK_<SERVICE>_SCHEMA (else the service's name), and reads the audit topic \
            (HALLMARK_AUDIT_TOPIC, default hallmark.audit) from its beginning through \
            HALLMARK_KAFKA_BROKERS. Records older than the topic's retention have no copy; that \
            is reported, not a break. Exit status 0: intact; 1: broken.
            """)

    @Option(help: "The service: signer, gateway, authority or aggregator.")
    var service: String

    @Option(help: "The schema (default: HALLMARK_<SERVICE>_SCHEMA, else the service's name).")
    var schema: String?

    @Flag(help: "Check the table only; do not compare it with the audit topic.")
    var tableOnly = false

    @Option(help: "Seconds to read the audit topic for, at most.")
    var topicTimeout = 30

    package init() {}

    package func run() async throws {
        var logger = Logger(label: "hallmark.audit")
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        let prefix = "HALLMARK_\(service.uppercased().replacingOccurrences(of: "-", with: "_"))"
        let schema = try self.schema ?? Settings(env).identifier("\(prefix)_SCHEMA", default: service)
        let pool = PostgresPool(
            configuration: try PostgresConfiguration.fromEnvironment(
                env, urlVariables: ["\(prefix)_POSTGRES_URL", PostgresConfiguration.urlVariable]), logger: logger)
        defer { pool.close() }
        let check = try await AuditChainCheck.run(schema: schema, pool: pool)
        if let problem = check.problem {
            print("audit trail of \(service) (schema \(schema)): BROKEN at record \(problem.sequence): \(problem)")
            print("records read: \(check.records); the head says \(check.headSequence)")
            throw ExitCode.failure
        }
        print(
            "audit trail of \(service) (schema \(schema)): intact, \(check.records) records, "
                + "head \(check.headSequence) \(check.headHash)")
        guard !tableOnly else { return }
        let topic = try Settings(env).value(ServiceRunner.Variable.auditTopic)
        var published: [(sequence: Int64, hash: String)] = []
        let complete = try await TopicReader(kafka: try KafkaConfiguration.fromEnvironment(env), logger: logger)
            .readToEnd([topic], groupPrefix: "hallmark-audit", timeout: .seconds(topicTimeout)) { message in
                guard message.key == Array(AuditTrail.kafkaKey(service: service, schema: schema).utf8),
                    let record = try? JSONCoding.decode(AuditRecord.self, from: message.value), record.service == service
                else { return }
                published.append((Int64(record.sequence), record.hash))
            }
        let copy = AuditCopyCheck.compare(table: check.hashes, published: published)
        if let problem = copy.problem {
            print("audit trail of \(service) against \(topic): BROKEN at record \(problem.sequence): \(problem)")
            throw ExitCode.failure
        }
        print(
            "published copy on \(topic): \(copy.matched) records match"
                + (copy.unpublished > 0
                    ? ", \(copy.unpublished) without a copy (older than the topic's retention, or not yet published)" : "")
                + (complete ? "" : " (the topic was not read to its end within \(topicTimeout) s)"))
    }
}
