import Logging

/// Topic administration for start-up: services create the topics they use when missing.
public struct KafkaAdmin: Sendable {
    public let configuration: KafkaConfiguration
    public let logger: Logger

    public init(configuration: KafkaConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Creates each missing topic with `partitions` partitions (default: the configuration's).
    /// - Returns: the topics that were created; existing topics are not changed.
    @discardableResult
    public func createTopics(
        _ names: [String], partitions: Int? = nil, timeout: Duration = .seconds(15)
    ) async throws
        -> [String]
    {
        let unique = Array(Set(names)).sorted()
        guard !unique.isEmpty else { return [] }
        let count = Int32(partitions ?? configuration.defaultPartitions)
        let ms = Int32(clamping: timeout.components.seconds * 1000)
        let (configuration, logger) = (self.configuration, self.logger)
        let created = try await BlockingCall.run(name: "hallmark-kafka-admin") {
            try RDKafkaAdmin.createTopics(
                unique, partitions: count, configuration: configuration,
                logger: logger, timeoutMilliseconds: ms)
        }
        if !created.isEmpty { logger.info("created topics", metadata: ["topics": "\(created)"]) }
        return created
    }
}
