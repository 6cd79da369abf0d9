import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkPostgres
import Logging

/// What ``ServiceRunner`` builds from the environment and hands to a service's wiring.
public struct ServiceContext: Sendable {
    /// The process environment (configuration comes from `HALLMARK_…` variables).
    public let environment: [String: String]
    public let service: String
    public let instance: String
    public let logger: Logger
    /// The broker's settings (a stage's message limit is the producer's).
    public let kafka: KafkaConfiguration
    /// Where the services' readers and outputs go: Kafka (``ServiceRunner``), or an in-memory
    /// broker in a test that runs services in one process.
    public let transport: StageTransport
    /// The service's schema and pool, when it has a database.
    public let database: StageDatabase?
    public let metrics: MetricsRegistry
    /// Where the stages report their liveness (written out by ``HealthFile`` when configured).
    public let health: HealthMonitor

    /// The process's one producer (the transport's sink). ``ServiceRunner`` made it, and
    /// flushes and closes it after every service stopped.
    public var producer: any StageSink { transport.sink }

    /// A context over `transport`: ``ServiceRunner`` gives Kafka's, a test a broker in memory.
    public init(
        environment: [String: String], service: String, instance: String, logger: Logger,
        kafka: KafkaConfiguration, transport: StageTransport, database: StageDatabase?,
        metrics: MetricsRegistry, health: HealthMonitor
    ) {
        self.environment = environment
        self.service = service
        self.instance = instance
        self.logger = logger
        self.kafka = kafka
        self.transport = transport
        self.database = database
        self.metrics = metrics
        self.health = health
    }

    /// The stage configuration for `inputs`, from the environment, with this process's
    /// instance name and message limit.
    public func stageConfiguration(
        inputs: [StageInput], dispatch: StageDispatch = .keyLanes
    ) throws(ConfigurationError) -> StageConfiguration {
        var config = try StageConfiguration.fromEnvironment(
            environment, service: service, inputs: inputs,
            dispatch: dispatch)
        config.instance = instance
        config.maxMessageBytes = kafka.maxMessageBytes
        return config
    }

    /// A stage with this context's transport, database and logger.
    /// - Parameters:
    ///   - name: the stage's name in its own flow settings
    ///     (``StageConfiguration/overriding(for:in:)``: `HALLMARK_<SERVICE>_<NAME>_MAX_BATCH`, …);
    ///     by default the group suffix without its dash, and none for a stage without one.
    ///   - groupSuffix: for a second stage in one process: appended to the consumer group
    ///     (e.g. `-sessions`), so each stage has its own group, partitions and lag. Stages of
    ///     partition batches that share the process's consumer (``HallmarkKafka/SharedConsumer``)
    ///     read in the service's group instead, and keep the name in their metrics.
    ///   - copiesOriginals: ``StageConfiguration/rejectedCopiesOriginal``: false for inputs that
    ///     may identify a device, whose rejected records then carry a digest and size only.
    ///   - outputKeyring: seals the answers the inbox keeps (``StageDatabase/outputKeyring``),
    ///     for a stage whose answers hold plaintext.
    ///   - wakesOnProduce: ``StageConfiguration/wakesOnProduce``: true for a stage that reads
    ///     the answers to what this process sends.
    public func stage<P: StageProcessor>(
        _ processor: P, name: String? = nil, inputs: [StageInput], dispatch: StageDispatch = .keyLanes,
        groupSuffix: String = "",
        copiesOriginals: Bool = true,
        outputKeyring: KeyEncryptionKeyring? = nil,
        wakesOnProduce: Bool = false
    ) throws -> Stage<P> {
        var configuration = try stageConfiguration(inputs: inputs, dispatch: dispatch)
        configuration.groupID += groupSuffix
        configuration.rejectedCopiesOriginal = copiesOriginals
        configuration.wakesOnProduce = wakesOnProduce
        if let name = name ?? (groupSuffix.isEmpty ? nil : String(groupSuffix.dropFirst())) {
            configuration = try configuration.overriding(for: name, in: environment)
        }
        var database = database
        if let outputKeyring { database?.outputKeyring = outputKeyring }
        return Stage(
            configuration: configuration, transport: transport, database: database,
            processor: processor, logger: logger, health: health)
    }
}
