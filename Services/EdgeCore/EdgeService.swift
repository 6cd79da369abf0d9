import Foundation
import HallmarkCore
import HallmarkRuntime
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization
import HallmarkMessages

/// Builds the edge's services from a ``ServiceContext``: the HTTP server, the answer router,
/// the receipts stage, the outcomes' listener and the receipt sweeper.
package enum EdgeService {
    /// Topics and schema for ``ServiceRunner``.
    package static func definition(_ c: EdgeConfiguration) -> ServiceRunner.Definition {
        ServiceRunner.Definition(
            service: "edge", topics: c.topics, schema: c.schema, migrations: EdgeMigrations.all(schema: c.schema))
    }

    package static func services(_ c: EdgeConfiguration, context: ServiceContext) throws -> [any Service] {
        let (background, server) = try parts(c, context: context)
        // The server last: the group stops it first, then what it relies on.
        return background + [server]
    }

    /// The services the HTTP server relies on, and the server (a Hummingbird application, which
    /// a test may drive through its router instead of running it). Every reader and output goes
    /// through `context`'s transport.
    package static func parts(
        _ c: EdgeConfiguration, context: ServiceContext
    ) throws -> (background: [any Service], server: some ApplicationProtocol) {
        guard let database = context.database else {
            throw ConfigurationError(variable: "HALLMARK_EDGE_POSTGRES_URL", reason: "receipts need the database")
        }
        let receipts = ReceiptStore(schema: c.schema, pool: database.pool)
        let outcomes = ReceiptOutcomes(
            receipts: receipts, configuration: database.pool.configuration, logger: context.logger)
        // The answers router and the verification cache need each other: the cache asks
        // through the router, the router tells the cache of each new checkpoint.
        let cache = Later<Verifications>()
        let answers = try AnswerRouter(
            transport: context.transport, topics: [c.verifyResults, c.modificationResults],
            observers: [
                c.checkpoints: { bytes in
                    guard let checkpoint = try? JSONCoding.decode(Message<Checkpoint>.self, from: bytes) else { return }
                    cache.value?.checkpoint(checkpoint.body.signed)
                }
            ], instance: context.instance)
        let producer = context.producer
        let verifications = Verifications(limit: c.verifyCacheEntries) { question in
            try await EdgeHandlers.ask(question, answers: answers, producer: producer, configuration: c)
        }
        cache.value = verifications
        let handlers = EdgeHandlers(
            configuration: c, answers: answers, receipts: receipts, outcomes: outcomes, producer: producer,
            verifications: verifications)
        let recorder = ReceiptRecorder(topic: c.submissionResults, receipts: receipts, outcomes: outcomes)
        let sweeper = PeriodicSweeper(
            what: "receipt", counter: "hallmark_edge_receipts_expired_total", service: "edge",
            interval: c.sweepInterval, logger: context.logger
        ) { try await receipts.sweep(olderThan: c.receiptRetention, limit: 1000) }
        let logger = context.logger
        // The operations page, only when it has a token.
        let settings = Settings(context.environment)
        let feed = try c.opsToken.map { _ in
            OpsFeed(
                transport: context.transport, metricsTopic: try settings.value(ServiceRunner.Variable.metricsTopic),
                securityTopic: try settings.value(StageConfiguration.Variable.securityTopic), instance: context.instance)
        }
        let ops: OpsPage? = if let token = c.opsToken, let feed { OpsPage(token: token, feed: feed) } else { nil }
        let verifier = VerifierPage(policy: try c.trustPolicy())
        let server = EdgeServer.application(
            handlers, host: c.host, port: c.port, ops: ops, verifier: verifier, logger: logger
        ) { port in
            logger.info("edge listening", metadata: ["port": "\(port)", "ops": "\(ops != nil)"])
        }
        let background: [any Service] =
            [sweeper, answers, outcomes] + (feed.map { [$0] } ?? []) + [
                // Partition batches: a batch of answers is one statement and one notification.
                try context.stage(
                    recorder, name: "receipts", inputs: recorder.inputs, dispatch: .partitionBatches,
                    groupSuffix: "-receipts")
            ]
        return (background, server)
    }
}

/// A value set once after it is first captured (two parts that need each other).
private final class Later<T: Sendable>: Sendable {
    private let storage = Mutex<T?>(nil)
    var value: T? {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
