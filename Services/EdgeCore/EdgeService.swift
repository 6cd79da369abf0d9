import Foundation
import HallmarkCore
import HallmarkRuntime
import Logging
import ServiceLifecycle

/// Builds the edge's services from a ``ServiceContext``: the HTTP server, the answer router,
/// the receipts stage and the receipt sweeper.
package enum EdgeService {
    /// Topics and schema for ``ServiceRunner``.
    package static func definition(_ c: EdgeConfiguration) -> ServiceRunner.Definition {
        ServiceRunner.Definition(
            service: "edge", topics: c.topics, schema: c.schema, migrations: EdgeMigrations.all(schema: c.schema))
    }

    package static func services(_ c: EdgeConfiguration, context: ServiceContext) throws -> [any Service] {
        guard let database = context.database else {
            throw ConfigurationError(variable: "HALLMARK_EDGE_POSTGRES_URL", reason: "receipts need the database")
        }
        let receipts = ReceiptStore(schema: c.schema, pool: database.pool)
        let answers = try AnswerRouter(
            kafka: context.kafka, topics: [c.submissionResults], instance: context.instance, logger: context.logger)
        let handlers = EdgeHandlers(configuration: c, answers: answers, receipts: receipts, producer: context.producer)
        let recorder = ReceiptRecorder(topic: c.submissionResults, receipts: receipts)
        let sweeper = PeriodicSweeper(
            what: "receipt", counter: "hallmark_edge_receipts_expired_total", service: "edge",
            interval: c.sweepInterval, logger: context.logger
        ) { try await receipts.sweep(olderThan: c.receiptRetention, limit: 1000) }
        let logger = context.logger
        let server = EdgeServer.application(handlers, host: c.host, port: c.port, logger: logger) { port in
            logger.info("edge listening", metadata: ["port": "\(port)"])
        }
        // The server last: the group stops it first, then what it relies on.
        return [
            sweeper, answers, try context.stage(recorder, name: "receipts", inputs: recorder.inputs, groupSuffix: "-receipts"),
            server,
        ]
    }
}
