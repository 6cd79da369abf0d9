import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import Logging
import ServiceLifecycle

/// Builds the aggregator's services from a ``ServiceContext``: the intake stage, the
/// authority-answer joiner, the retrier of unanswered token requests, the log writer (one
/// leader across replicas, the others hot standbys) and the verification stage.
package enum AggregatorService {
    /// Topics and schema for ``ServiceRunner``.
    package static func definition(_ c: AggregatorConfiguration) -> ServiceRunner.Definition {
        ServiceRunner.Definition(
            service: "aggregator", topics: c.topics, schema: c.schema,
            migrations: AggregatorMigrations.all(schema: c.schema))
    }

    package static func services(_ c: AggregatorConfiguration, context: ServiceContext) throws -> [any Service] {
        guard let path = c.signingKeyFile else {
            throw ConfigurationError(
                variable: "HALLMARK_AGGREGATOR_SIGNING_KEY_FILE",
                reason: "is needed: the checkpoint key (make one with hallmark aggregator signing-key)")
        }
        let key = try CheckpointSigningKey.load(path)
        guard let idKey = c.idKey else {
            throw ConfigurationError(
                variable: "HALLMARK_AGGREGATOR_ID_KEY_FILE",
                reason: "is needed: the key of token request ids (b64 of 32 random bytes)")
        }
        guard let database = context.database else {
            throw ConfigurationError(variable: "HALLMARK_AGGREGATOR_POSTGRES_URL", reason: "the log needs the database")
        }
        context.logger.info("checkpoint key loaded", metadata: ["key_id": "\(key.keyID)", "authority_id": "\(c.authorityID)"])
        let metrics = AggregatorMetrics()
        // The ledger (with its token requests), capture tokens, waits and log tables: made once, here.
        let flow = SubmissionFlow(c, idKey: idKey)
        let log = try TransparencyLog(
            flow: flow, key: key, checkpointTopic: c.checkpoints, origin: c.origin, metrics: metrics)
        let writer = OrderedWriter(
            configuration: .init(
                name: TransparencyLog.writerName, schema: c.schema, service: "aggregator",
                maxBatch: c.maxBatch, linger: c.linger, pace: c.pace),
            log: log, pool: database.pool, producer: context.producer, logger: context.logger)
        flow.writerBell.attach { writer.wake() }
        let pool = database.pool
        let retrier = RequestRetrier(
            book: flow.ledger, pool: pool, producer: context.producer, service: "aggregator",
            logger: context.logger
        ) { expired in
            let answers = try await flow.ledger.timedOut(expired, on: pool)
            for _ in answers { metrics.submission(SubmissionResult.Reason.validationTimeout.rawValue) }
            return answers
        }
        let intake = SubmissionIntake(
            configuration: c, idKey: idKey, flow: flow, instance: context.instance, metrics: metrics, pool: pool,
            maxMessageBytes: context.kafka.maxMessageBytes)
        let joiner = TokenResultJoiner(configuration: c, flow: flow, metrics: metrics)
        let policy = try c.witnessPolicy()
        let verifier = LogVerifier(configuration: c, store: flow.log, metrics: metrics, pool: pool, policy: policy)
        let claims = ClaimRecorder(configuration: c, store: ClaimStore(schema: c.schema), metrics: metrics)
        // Witnesses are asked off the append path, in a service of their own.
        let cosigner = policy.map {
            WitnessCosigner(
                policy: $0, store: flow.log, pool: pool, interval: c.witnessInterval, timeout: c.witnessTimeout,
                deadline: c.witnessDeadline, logger: context.logger)
        }
        // The tile directory too: its files are written off the append path.
        let tiles = c.tilesDirectory.map {
            TileWriter(
                directory: TileDirectory(path: $0), store: flow.log, pool: pool, interval: c.tilesInterval,
                logger: context.logger)
        }
        // A new checkpoint key (a restart with another key file) goes into the audit trail.
        let audit = AuditTrail(schema: c.schema, service: "aggregator", topic: c.auditTopic, indexKey: nil)
        let recorder = try context.keyRotationRecorder(
            audit,
            keys: [
                KeySet(.checkpointKeyRotation, keys: [(key.keyID, key.publicKey)], current: key.keyID)
            ])
        let sweeper = PeriodicSweeper(
            what: "answered submission", counter: "hallmark_aggregator_answers_expired_total",
            service: "aggregator", interval: c.sweepInterval, logger: context.logger
        ) {
            try await flow.ledger.sweepAnswered(olderThan: c.answerRetention, limit: 1000, on: pool)
        }
        // The stages last, so the group stops them first: they drain while the writer runs.
        // Each stage has its own consumer group, so its lag (and its scaling) is its own.
        let captureSweeper = PeriodicSweeper(
            what: "capture token", counter: "hallmark_aggregator_capture_tokens_expired_total",
            service: "aggregator", interval: c.sweepInterval, logger: context.logger
        ) {
            try await flow.captures.sweep(limit: 1000, on: pool)
        }
        // Submissions waiting for a parent are judged again off the intake's path.
        let waiter = ParentWaiter(
            configuration: c, flow: flow, pool: pool, producer: context.producer, metrics: metrics,
            logger: context.logger)
        let support: [any Service] =
            [recorder, sweeper, captureSweeper, writer, retrier, waiter] + (cosigner.map { [$0] } ?? [])
            + (tiles.map { [$0] } ?? [])
            // The manufacturer CAs' file, looked at again while it is configured.
            + (c.deviceCAFile == nil ? [] : [flow.certificates])
        return support + [
            try context.stage(verifier, inputs: verifier.inputs, dispatch: .partitionBatches, groupSuffix: "-verify"),
            try context.stage(claims, inputs: claims.inputs, dispatch: .partitionBatches, groupSuffix: "-claims"),
            // Token results answer the intake's requests: its producing wakes their reader.
            try context.stage(
                joiner, inputs: joiner.inputs, dispatch: .partitionBatches,
                groupSuffix: "-tokens", wakesOnProduce: true),
            // A bundle can hold a device signature: its rejected records carry a digest and size.
            try context.stage(
                intake, name: "intake", inputs: intake.inputs, dispatch: .partitionBatches,
                copiesOriginals: false),
        ]
    }
}
