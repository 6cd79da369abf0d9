import Foundation
import HallmarkCore

/// How a stage consumes and processes. Every field has a documented default; the tunable
/// ones come from `HALLMARK_…` variables (``fromEnvironment(_:service:inputs:)``).
public struct StageConfiguration: Sendable {
    /// The service's name, e.g. `signer` (metrics, logs, rejected records).
    public var service: String
    /// This process's name within the service. `HALLMARK_INSTANCE`, default `<host>-<pid>`.
    public var instance: String
    /// The consumer group. `HALLMARK_GROUP_ID`, default `hallmark-<service>`.
    public var groupID: String
    /// Topics consumed, each with the schemas it takes.
    public var inputs: [StageInput]
    /// How messages reach the processor. Default ``StageDispatch/keyLanes``.
    public var dispatch: StageDispatch
    /// The transaction effects commit in. Default ``StageUnitOfWork/none``.
    public var unitOfWork: StageUnitOfWork
    /// Where unprocessable messages go. `HALLMARK_REJECTED_TOPIC`, default `hallmark.rejected`.
    public var rejectedTopic: String
    /// Whether a rejected record carries the original's bytes (whole, or its first 4 KiB when
    /// too large). False for inputs that may identify a device (Birthmark submissions): the
    /// record then carries the original's SHA-256 and size only. Default true.
    public var rejectedCopiesOriginal: Bool = true
    /// Where the runtime's own security events go (an id used again for other content or on
    /// another topic). `HALLMARK_SECURITY_TOPIC`, default `hallmark.security`.
    public var securityTopic: String
    /// Topics a message's `reply_to` may name; a result goes there instead of the stage's
    /// output topic only when it is listed. `HALLMARK_REPLY_TOPICS` (comma-separated), default none.
    public var replyTopics: Set<String>
    /// Messages in flight at once (queued in lanes or being processed).
    /// `HALLMARK_MAX_IN_FLIGHT`, default 64.
    public var maxInFlight: Int
    /// Messages one key lane (or one batch worker's queue) may hold; past it the partition is
    /// paused and its fetched messages wait aside, so one stuck key never takes every slot.
    /// `HALLMARK_LANE_DEPTH`, default 8.
    public var laneDepth: Int
    /// Batch stages: most messages processed as one batch. `HALLMARK_MAX_BATCH`, default 1024.
    public var maxBatch: Int
    /// Batch stages: how long a worker that found fewer than ``maxBatch`` messages waits for
    /// more before it processes them. Below saturation a worker otherwise takes them one at a
    /// time, paying a batch's fixed cost (a transaction) per message. `HALLMARK_BATCH_LINGER_MS`,
    /// default 0 (no wait); each service may set its own default.
    public var batchLinger: Duration
    /// Batch stages: batches processed concurrently, each over its own share of the partitions
    /// (so per-partition order holds). `HALLMARK_BATCH_WORKERS`, default 4.
    public var batchWorkers: Int
    /// Batch stages: batches per worker whose outputs may await acknowledgement while the
    /// next is processed. Default 4.
    public var batchesInFlight: Int
    /// Larger messages are rejected as `oversized`, and so is any message whose outputs would
    /// be larger. Set from the Kafka configuration's `HALLMARK_MAX_MESSAGE_BYTES`, default 1 MiB.
    public var maxMessageBytes: Int
    /// Attempts before an unexpected (non-transient) error rejects a message. Default 5.
    public var maxAttempts: Int
    /// The pause between tries of a failed phase: 50 ms, doubled per failure up to 2 s by
    /// default. Its attempts are unbounded here: transient failures retry until shutdown's
    /// grace, and ``maxAttempts`` bounds the others (the policy's own limit is not used).
    public var retry: RetryPolicy
    /// After SIGTERM, how long in-flight messages may keep retrying transient failures before
    /// they are left unacknowledged for the next consumer. `HALLMARK_SHUTDOWN_GRACE_MS`, default 20 s.
    public var shutdownGrace: Duration
    /// On revocation, how long to wait for the partitions' in-flight messages. Default 10 s.
    public var revokeDrainTimeout: Duration

    public init(
        service: String, inputs: [StageInput], instance: String? = nil, groupID: String? = nil,
        dispatch: StageDispatch = .keyLanes, unitOfWork: StageUnitOfWork = .none,
        rejectedTopic: String = "hallmark.rejected", securityTopic: String = "hallmark.security", replyTopics: Set<String> = [],
        maxInFlight: Int = 64,
        laneDepth: Int = 8, maxBatch: Int = 1024, batchLinger: Duration = .zero, batchWorkers: Int = 4, batchesInFlight: Int = 4,
        maxMessageBytes: Int = 1 << 20, maxAttempts: Int = 5, retry: RetryPolicy = RetryPolicy(),
        shutdownGrace: Duration = .seconds(20),
        revokeDrainTimeout: Duration = .seconds(10)
    ) {
        self.service = service
        self.instance = instance ?? "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
        self.groupID = groupID ?? "hallmark-\(service)"
        self.inputs = inputs
        self.dispatch = dispatch
        self.unitOfWork = unitOfWork
        self.rejectedTopic = rejectedTopic
        self.securityTopic = securityTopic
        self.replyTopics = replyTopics
        self.maxInFlight = maxInFlight
        self.laneDepth = laneDepth
        self.maxBatch = maxBatch
        self.batchLinger = batchLinger
        self.batchWorkers = batchWorkers
        self.batchesInFlight = batchesInFlight
        self.maxMessageBytes = maxMessageBytes
        self.maxAttempts = maxAttempts
        self.retry = retry
        self.shutdownGrace = shutdownGrace
        self.revokeDrainTimeout = revokeDrainTimeout
    }

    /// The topics consumed.
    public var inputTopics: [String] { inputs.map(\.topic) }

    /// Applies the `HALLMARK_…` variables over the defaults.
    public static func fromEnvironment(
        _ env: [String: String], service: String, inputs: [StageInput],
        dispatch: StageDispatch = .keyLanes, unitOfWork: StageUnitOfWork = .none
    )
        throws(ConfigurationError) -> StageConfiguration
    {
        let settings = Settings(env)
        var config = StageConfiguration(service: service, inputs: inputs, dispatch: dispatch, unitOfWork: unitOfWork)
        if let v = settings.string("HALLMARK_INSTANCE") { config.instance = v }
        if let v = settings.string("HALLMARK_GROUP_ID") { config.groupID = v }
        config.rejectedTopic = try settings.topic("HALLMARK_REJECTED_TOPIC", default: config.rejectedTopic)
        config.securityTopic = try settings.topic("HALLMARK_SECURITY_TOPIC", default: config.securityTopic)
        config.replyTopics = Set(try settings.topics("HALLMARK_REPLY_TOPICS", default: []))
        config.maxInFlight = try settings.integer("HALLMARK_MAX_IN_FLIGHT", default: config.maxInFlight, in: 1...65_536)
        config.laneDepth = try settings.integer("HALLMARK_LANE_DEPTH", default: config.laneDepth, in: 1...65_536)
        config.maxBatch = try settings.integer("HALLMARK_MAX_BATCH", default: config.maxBatch, in: 1...65_536)
        config.batchLinger = try settings.milliseconds("HALLMARK_BATCH_LINGER_MS", default: config.batchLinger, in: 0...10_000)
        config.batchWorkers = try settings.integer("HALLMARK_BATCH_WORKERS", default: config.batchWorkers, in: 1...1024)
        config.maxMessageBytes = try settings.integer(
            "HALLMARK_MAX_MESSAGE_BYTES", default: config.maxMessageBytes,
            in: 4096...(256 << 20))
        config.shutdownGrace = try settings.milliseconds(
            "HALLMARK_SHUTDOWN_GRACE_MS", default: config.shutdownGrace,
            in: 0...3_600_000)
        return config
    }

    /// The flow settings one stage of a service may set apart from the others, as
    /// `HALLMARK_<SERVICE>_<STAGE>_<SETTING>` (e.g. HALLMARK_AGGREGATOR_INTAKE_MAX_BATCH or
    /// HALLMARK_AGGREGATOR_TOKENS_BATCH_WORKERS), each falling back to `HALLMARK_<SETTING>`.
    public static let perStageSettings = ["MAX_IN_FLIGHT", "LANE_DEPTH", "MAX_BATCH", "BATCH_LINGER_MS", "BATCH_WORKERS"]

    /// This configuration with the stage's own flow settings applied (``perStageSettings``):
    /// `HALLMARK_<SERVICE>_<STAGE>_<SETTING>` where set; elsewhere the value already chosen
    /// (from `HALLMARK_<SETTING>` or the stage's default) stays.
    public func overriding(for stage: String, in env: [String: String]) throws(ConfigurationError) -> StageConfiguration {
        let settings = Settings(env)
        let name = { (part: String) in String(part.uppercased().map { $0 == "-" ? "_" : $0 }) }
        let prefix = "HALLMARK_\(name(service))_\(name(stage))_"
        var config = self
        config.maxInFlight = try settings.integer(prefix + "MAX_IN_FLIGHT", default: maxInFlight, in: 1...65_536)
        config.laneDepth = try settings.integer(prefix + "LANE_DEPTH", default: laneDepth, in: 1...65_536)
        config.maxBatch = try settings.integer(prefix + "MAX_BATCH", default: maxBatch, in: 1...65_536)
        config.batchLinger = try settings.milliseconds(prefix + "BATCH_LINGER_MS", default: batchLinger, in: 0...10_000)
        config.batchWorkers = try settings.integer(prefix + "BATCH_WORKERS", default: batchWorkers, in: 1...1024)
        return config
    }
}
