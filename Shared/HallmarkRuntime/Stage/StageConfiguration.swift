import Foundation

/// How a stage consumes and processes. Every field has a documented default and an
/// environment variable.
public struct StageConfiguration: Sendable {
    /// The service's name, e.g. `signer` (metrics, logs, rejected records).
    public var service: String
    /// This process's name within the service. `HALLMARK_INSTANCE`, default `<host>-<pid>`.
    public var instance: String
    /// The consumer group. `HALLMARK_GROUP_ID`, default `hallmark-<service>`.
    public var groupID: String
    /// Topics consumed.
    public var inputTopics: [String]
    /// Where unprocessable messages go. `HALLMARK_REJECTED_TOPIC`, default `hallmark.rejected`.
    public var rejectedTopic: String
    /// Messages processed concurrently (different keys only). `HALLMARK_MAX_IN_FLIGHT`, default 64.
    public var maxInFlight: Int
    /// Batch stages: most messages processed as one batch. `HALLMARK_MAX_BATCH`, default 1024.
    public var maxBatch: Int
    /// Batch stages: batches processed concurrently, each over its own share of the
    /// partitions (so per-partition order holds); more workers than cores let one batch's
    /// database round trip overlap another's work. `HALLMARK_BATCH_WORKERS`, default 4.
    public var batchWorkers: Int
    /// Batch stages: batches per worker whose outputs may await acknowledgement while the
    /// next is processed. Default 4.
    public var batchesInFlight: Int
    /// Larger messages are rejected as `oversized`. `HALLMARK_MAX_MESSAGE_BYTES`, default 1 MiB.
    public var maxMessageBytes: Int
    /// Attempts before an unexpected (non-transient) error rejects a message. Default 5.
    public var maxAttempts: Int
    /// First retry delay, doubled per attempt up to ``maxBackoff``. Default 50 ms.
    public var initialBackoff: Duration
    /// Longest retry delay. Default 2 s.
    public var maxBackoff: Duration
    /// After SIGTERM, how long in-flight messages may keep retrying transient failures before
    /// they are left unacknowledged for the next consumer. `HALLMARK_SHUTDOWN_GRACE_MS`, default 20 s.
    public var shutdownGrace: Duration
    /// On revocation, how long to wait for the partitions' in-flight messages. Default 10 s.
    public var revokeDrainTimeout: Duration

    public init(service: String, inputTopics: [String], instance: String? = nil, groupID: String? = nil,
                rejectedTopic: String = "hallmark.rejected", maxInFlight: Int = 64,
                maxBatch: Int = 1024, batchWorkers: Int = 4, batchesInFlight: Int = 4,
                maxMessageBytes: Int = 1 << 20, maxAttempts: Int = 5,
                initialBackoff: Duration = .milliseconds(50), maxBackoff: Duration = .seconds(2),
                shutdownGrace: Duration = .seconds(20), revokeDrainTimeout: Duration = .seconds(10)) {
        self.service = service
        self.instance = instance ?? "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
        self.groupID = groupID ?? "hallmark-\(service)"
        self.inputTopics = inputTopics
        self.rejectedTopic = rejectedTopic
        self.maxInFlight = maxInFlight
        self.maxBatch = maxBatch
        self.batchWorkers = batchWorkers
        self.batchesInFlight = batchesInFlight
        self.maxMessageBytes = maxMessageBytes
        self.maxAttempts = maxAttempts
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.shutdownGrace = shutdownGrace
        self.revokeDrainTimeout = revokeDrainTimeout
    }

    /// Applies the `HALLMARK_…` variables over the defaults.
    public static func fromEnvironment(_ env: [String: String], service: String, inputTopics: [String]) throws
        -> StageConfiguration
    {
        var config = StageConfiguration(service: service, inputTopics: inputTopics)
        if let v = env["HALLMARK_INSTANCE"], !v.isEmpty { config.instance = v }
        if let v = env["HALLMARK_GROUP_ID"], !v.isEmpty { config.groupID = v }
        if let v = env["HALLMARK_REJECTED_TOPIC"], !v.isEmpty { config.rejectedTopic = v }
        if let v = try ConfigurationError.positiveInt(env, "HALLMARK_MAX_IN_FLIGHT") { config.maxInFlight = v }
        if let v = try ConfigurationError.positiveInt(env, "HALLMARK_MAX_BATCH") { config.maxBatch = v }
        if let v = try ConfigurationError.positiveInt(env, "HALLMARK_BATCH_WORKERS") { config.batchWorkers = v }
        if let v = try ConfigurationError.positiveInt(env, "HALLMARK_MAX_MESSAGE_BYTES") { config.maxMessageBytes = v }
        if let v = try ConfigurationError.positiveInt(env, "HALLMARK_SHUTDOWN_GRACE_MS") {
            config.shutdownGrace = .milliseconds(v)
        }
        return config
    }
}

/// A malformed setting. Names the variable, never its value (it may be a secret).
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public let variable: String
    public let reason: String

    public init(variable: String, reason: String) {
        self.variable = variable
        self.reason = reason
    }

    public var description: String { "\(variable): \(reason)" }

    static func positiveInt(_ env: [String: String], _ name: String) throws -> Int? {
        guard let raw = env[name], !raw.isEmpty else { return nil }
        guard let value = Int(raw), value > 0 else {
            throw ConfigurationError(variable: name, reason: "must be a positive integer")
        }
        return value
    }
}
