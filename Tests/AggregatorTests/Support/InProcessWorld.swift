import AggregatorCore
import AuthorityCore
import EdgeCore
import Foundation
import HallmarkClient
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime
import HallmarkStageTesting
import HallmarkTestSupport
import Logging
import ServiceLifecycle

/// The Birthmark half in one process: the authority, the aggregator and the edge, each built
/// by the same `services` function its `hallmark-…` executable runs, over one ``MemoryBroker``
/// (every topic at its default name) and the real PostgreSQL (`HALLMARK_POSTGRES_URL`), where
/// each service has a schema and a pool of its own, as each process would. The edge's HTTP
/// routes are driven through Hummingbird's router (``edge(_:)``), without a socket.
final class InProcessWorld: Sendable {
    let broker = MemoryBroker()
    let authority: AuthorityConfiguration
    let aggregator: AggregatorConfiguration
    let edgeConfiguration: EdgeConfiguration
    /// The log's checkpoint key (its file is the aggregator's `HALLMARK_AGGREGATOR_SIGNING_KEY_FILE`).
    let signingKey: CheckpointSigningKey
    /// The aggregator's pool (the log's tables).
    let aggregatorPool: PostgresPool
    private let pools: [PostgresPool]
    private let signingKeyFile: String
    private let logger: Logger
    private let group: ServiceGroup
    private let running: Task<Void, any Error>
    private let routes: EdgeRoutes

    /// Runs `body` in a new world, then stops the world whatever `body` did.
    static func run(_ body: (InProcessWorld) async throws -> Void) async throws {
        let world = try await InProcessWorld()
        do { try await body(world) } catch {
            await world.close()
            throw error
        }
        await world.close()
    }

    private init() async throws {
        var logger = Logger(label: "in-process-world")
        // Raise it to .info to see each stage start and stop.
        logger.logLevel = .warning
        self.logger = logger
        let id = String(UUID().uuidString.prefix(8)).lowercased()
        var a = AuthorityConfiguration()
        a.schema = "walk_authority_\(id)"
        authority = a
        var g = AggregatorConfiguration()
        g.schema = "walk_aggregator_\(id)"
        g.idKey = try SubmissionIDKey.generate()
        signingKey = try CheckpointSigningKey.generate()
        signingKeyFile = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(id).key").path
        try signingKey.write(to: signingKeyFile)
        g.signingKeyFile = signingKeyFile
        aggregator = g
        var e = EdgeConfiguration()
        e.schema = "walk_edge_\(id)"
        // Long enough that the submit answers with the outcome, not pending_validation.
        e.answerWait = .seconds(8)
        edgeConfiguration = e

        let kafka = KafkaConfiguration()
        let transport = broker.transport(maxMessageBytes: kafka.maxMessageBytes)
        let postgres = try PostgresConfiguration.fromEnvironment()
        let authorityPool = PostgresPool(configuration: postgres, logger: logger)
        let edgePool = PostgresPool(configuration: postgres, logger: logger)
        aggregatorPool = PostgresPool(configuration: postgres, logger: logger)
        pools = [authorityPool, aggregatorPool, edgePool]
        func context(_ service: String, _ database: StageDatabase) -> ServiceContext {
            ServiceContext(
                environment: [:], service: service, instance: "walk", logger: logger, kafka: kafka, transport: transport,
                database: database, metrics: MetricsRegistry(), health: HealthMonitor())
        }

        // The authority: its schema and three key tables (a camera is assigned three), then
        // what `hallmark-authority` runs.
        let secrets = try AuthoritySecrets.parse(try AuthoritySecrets.generateText(), source: "walk")
        try await AggregatorHarness.prepareAuthority(
            schema: a.schema, secrets: secrets, tables: 3, pool: authorityPool, logger: logger)
        let authorityDatabase = StageDatabase(pool: authorityPool, schema: a.schema)
        let authorityServices = try await AuthorityService.services(
            configuration: a, secrets: secrets, database: authorityDatabase, transport: transport,
            stage: try context("authority", authorityDatabase).stageConfiguration(inputs: []), logger: logger)

        // The aggregator, as `hallmark-aggregator` runs it.
        let aggregatorDatabase = StageDatabase(pool: aggregatorPool, schema: g.schema)
        try await aggregatorDatabase.migrate(AggregatorService.definition(g).migrations, logger: logger)
        let aggregatorServices = try AggregatorService.services(g, context: context("aggregator", aggregatorDatabase))

        // The edge: what `hallmark-edge` runs but its HTTP server, whose router the test drives.
        let edgeDatabase = StageDatabase(pool: edgePool, schema: e.schema)
        try await edgeDatabase.migrate(EdgeService.definition(e).migrations, logger: logger)
        let (edgeServices, server) = try EdgeService.parts(e, context: context("edge", edgeDatabase))
        let client = try await RouterClient(server)
        routes = EdgeRoutes { path, method, headers, body in
            try await client.execute(path, method: method, headers: headers, body: body)
        }

        // One group, stopped in reverse: the edge first, then the aggregator, the authority last.
        let group = ServiceGroup(services: authorityServices + aggregatorServices + edgeServices, logger: logger)
        self.group = group
        running = Task { try await group.run() }
    }

    /// Runs `test` against the edge's routes.
    func edge(_ test: @Sendable (EdgeRoutes) async throws -> Void) async throws {
        try await test(routes)
    }

    /// A camera provisioned by the authority (PROV-1), its request and answer over the broker.
    func provisioned(_ serial: String) async throws -> ProvisioningFile {
        let (broker, topics) = (broker, (authority.provisionInput, authority.provisionOutput))
        let outcome = try await CameraProvisioner.provision(serial: serial) { request in
            broker.produce(topic: topics.0, key: serial, value: try JSONCoding.encode(request))
            let id = request.id.text
            return await broker.firstMessage(in: topics.1, timeout: .seconds(5)) {
                AnswerWatcher.requestId($0.value) == id
            }?.value
        }
        guard case .provisioned(let file) = outcome else { throw HarnessError("\(serial) was not provisioned: \(outcome)") }
        return file
    }

    /// The log's leaves as stored: (index, image hash hex), by index.
    func storedLeaves() async throws -> [(Int64, String)] {
        try await AggregatorHarness.storedLeaves(schema: aggregator.schema, pool: aggregatorPool)
    }

    /// Stops every service (gracefully, as SIGTERM would), then drops the world's schemas.
    private func close() async {
        await group.triggerGracefulShutdown()
        if case .failure(let error) = await running.result {
            logger.error("a service failed", metadata: ["error": "\(error)"])
        }
        for schema in [edgeConfiguration.schema, aggregator.schema, authority.schema] {
            _ = try? await aggregatorPool.execute("DROP SCHEMA IF EXISTS \(unescaped: schema) CASCADE")
        }
        pools.forEach { $0.close() }
        try? FileManager.default.removeItem(atPath: signingKeyFile)
    }
}
