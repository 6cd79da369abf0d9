import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages

/// How a stage consumes and processes. Every field has a documented default; the tunable
/// ones come from `HALLMARK_…` variables (``fromEnvironment(_:service:inputs:)``).
public struct StageConfiguration: DeclaredSettings {
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
    /// Where unprocessable messages go. `HALLMARK_REJECTED_TOPIC`, default `hallmark.rejected`.
    public var rejectedTopic: String
    /// Whether a rejected record carries the original's bytes (whole, or its first 4 KiB when
    /// too large). False for inputs that may identify a device (Birthmark submissions): the
    /// record then carries the original's SHA-256 and size only. Default true.
    public var rejectedCopiesOriginal: Bool = true
    /// Whether the inputs answer what this process itself sends (the aggregator's token
    /// results): then the process producing wakes the stage's consumer from a rest, so an
    /// answer never waits for the rest's next check. Default false.
    public var wakesOnProduce: Bool = false
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
    /// Batch stages: the longest a worker that found fewer than ``maxBatch`` messages waits,
    /// while another of the stage's batches is at work, for that batch to finish (group
    /// commit): it goes at once when none is, and takes what arrived meanwhile. Below
    /// saturation a worker otherwise takes messages one at a time, paying a batch's fixed cost
    /// (a transaction) per message. `HALLMARK_BATCH_LINGER_MS`, default 50 ms; 0 never waits.
    public var batchLinger: Duration
    /// Batch stages: the shortest time between the starts of one worker's batches while a
    /// stream keeps it busy. A short batch that comes sooner waits out the rest of it and
    /// takes what arrived meanwhile; after a quiet spell longer than this, a message goes at
    /// once. So a paced stream is processed in batches of what this time holds, not one
    /// transaction per message, and a lone message waits for nothing.
    /// `HALLMARK_BATCH_PACE_MS`, default 20 ms; 0 never waits.
    public var batchPace: Duration
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
        dispatch: StageDispatch = .keyLanes,
        rejectedTopic: String = Variable.rejectedTopic.defaultValue,
        securityTopic: String = Variable.securityTopic.defaultValue, replyTopics: Set<String> = [],
        maxInFlight: Int = Variable.maxInFlight.defaultValue, laneDepth: Int = Variable.laneDepth.defaultValue,
        maxBatch: Int = Variable.maxBatch.defaultValue, batchLinger: Duration = Variable.batchLinger.defaultValue,
        batchPace: Duration = Variable.batchPace.defaultValue,
        batchWorkers: Int = Variable.batchWorkers.defaultValue, batchesInFlight: Int = 4,
        maxMessageBytes: Int = KafkaConfiguration.declared(\.maxMessageBytes), maxAttempts: Int = 5,
        retry: RetryPolicy = RetryPolicy(), shutdownGrace: Duration = Variable.shutdownGrace.defaultValue,
        revokeDrainTimeout: Duration = .seconds(10)
    ) {
        self.service = service
        self.instance = instance ?? "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
        self.groupID = groupID ?? "hallmark-\(service)"
        self.inputs = inputs
        self.dispatch = dispatch
        self.rejectedTopic = rejectedTopic
        self.securityTopic = securityTopic
        self.replyTopics = replyTopics
        self.maxInFlight = maxInFlight
        self.laneDepth = laneDepth
        self.maxBatch = maxBatch
        self.batchLinger = batchLinger
        self.batchPace = batchPace
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

    /// The variables, each declared once (``settings`` binds them; other configurations share
    /// some).
    public enum Variable {
        public static let instance = Setting.optionalText(
            "HALLMARK_INSTANCE", doc: "this process's name within its service (default `<host>-<pid>`)")
        public static let groupID = Setting.optionalText(
            "HALLMARK_GROUP_ID", doc: "the consumer group (default `hallmark-<service>`)")
        public static let rejectedTopic = Setting.topic(
            "HALLMARK_REJECTED_TOPIC", default: TopicCatalogue.rejected.name, doc: "where refused messages are recorded")
        public static let securityTopic = Setting.topic(
            "HALLMARK_SECURITY_TOPIC", default: TopicCatalogue.security.name, doc: "security events")
        public static let replyTopics = Setting.topics(
            "HALLMARK_REPLY_TOPICS", default: [], doc: "topics a message's `reply_to` may name")
        public static let maxInFlight = Setting.integer(
            "HALLMARK_MAX_IN_FLIGHT", default: 64, in: 1...65_536, doc: "messages queued in lanes or at work at once")
        public static let laneDepth = Setting.integer(
            "HALLMARK_LANE_DEPTH", default: 8, in: 1...65_536,
            doc: "messages one key lane may hold; past it the partition is paused")
        public static let maxBatch = Setting.integer(
            "HALLMARK_MAX_BATCH", default: 1024, in: 1...65_536, doc: "batch stages: most messages in one batch")
        public static let batchLinger = Setting.milliseconds(
            "HALLMARK_BATCH_LINGER_MS", default: .milliseconds(50), in: 0...10_000,
            doc: "batch stages: longest a short batch waits for another batch at work to finish (0: never waits)")
        public static let batchPace = Setting.milliseconds(
            "HALLMARK_BATCH_PACE_MS", default: .milliseconds(20), in: 0...10_000,
            doc: "batch stages: shortest time between one worker's batches while a stream keeps it busy (0: never waits)")
        public static let batchWorkers = Setting.integer(
            "HALLMARK_BATCH_WORKERS", default: 4, in: 1...1024, doc: "batch stages: batches processed concurrently")
        public static let shutdownGrace = Setting.milliseconds(
            "HALLMARK_SHUTDOWN_GRACE_MS", default: .seconds(20), in: 0...3_600_000,
            doc: "after SIGTERM, how long in-flight messages may keep retrying")

        /// A stage's own flow variables (`HALLMARK_<SERVICE>_<STAGE>_<SETTING>`), each falling
        /// back to the service's.
        public static func flow(service: String, stage: String) -> [SettingDescription] {
            let o = Overrides(service: service, stage: stage)
            return [
                o.maxInFlight.description, o.laneDepth.description, o.maxBatch.description, o.batchLinger.description,
                o.batchPace.description, o.batchWorkers.description,
            ]
        }
    }

    /// The flow settings one stage of a service may set apart from the others, as
    /// `HALLMARK_<SERVICE>_<STAGE>_<SETTING>` (e.g. HALLMARK_AGGREGATOR_INTAKE_MAX_BATCH or
    /// HALLMARK_AGGREGATOR_TOKENS_BATCH_WORKERS), each falling back to `HALLMARK_<SETTING>`.
    struct Overrides {
        let maxInFlight, laneDepth, maxBatch, batchWorkers: Setting<Int>
        let batchLinger, batchPace: Setting<Duration>

        init(service: String, stage: String) {
            let name = { (part: String) in String(part.uppercased().map { $0 == "-" ? "_" : $0 }) }
            let prefix = "HALLMARK_\(name(service))_\(name(stage))_"
            func own<V>(_ setting: Setting<V>) -> Setting<V> {
                setting.renamed(
                    prefix + setting.name.dropFirst("HALLMARK_".count),
                    doc: "the \(stage) stage's own \(setting.name) (default: that)")
            }
            maxInFlight = own(Variable.maxInFlight)
            laneDepth = own(Variable.laneDepth)
            maxBatch = own(Variable.maxBatch)
            batchLinger = own(Variable.batchLinger)
            batchPace = own(Variable.batchPace)
            batchWorkers = own(Variable.batchWorkers)
        }
    }

    /// Every setting, in the order `hallmark config` lists them (declared in ``Variable``, which
    /// other configurations share).
    public static let settings: [ConfigurationSetting<Self>] = [
        // Unset, each keeps the default made from the host and the service.
        .custom([Variable.instance.description]) { c, s throws(ConfigurationError) in
            if let v = try s.value(Variable.instance) { c.instance = v }
        },
        .custom([Variable.groupID.description]) { c, s throws(ConfigurationError) in
            if let v = try s.value(Variable.groupID) { c.groupID = v }
        },
        .bind(\.rejectedTopic, Variable.rejectedTopic),
        .bind(\.securityTopic, Variable.securityTopic),
        .bind(\.replyTopics, Variable.replyTopics, as: { Set($0) }),
        .bind(\.maxInFlight, Variable.maxInFlight),
        .bind(\.laneDepth, Variable.laneDepth),
        .bind(\.maxBatch, Variable.maxBatch),
        .bind(\.batchLinger, Variable.batchLinger),
        .bind(\.batchPace, Variable.batchPace),
        .bind(\.batchWorkers, Variable.batchWorkers),
        // Listed with Kafka's settings.
        .custom([]) { c, s throws(ConfigurationError) in
            c.maxMessageBytes = try KafkaConfiguration.value(\.maxMessageBytes, in: s)
        },
        .bind(\.shutdownGrace, Variable.shutdownGrace),
    ]

    /// Applies the declared settings over the defaults.
    public static func fromEnvironment(
        _ env: [String: String], service: String, inputs: [StageInput],
        dispatch: StageDispatch = .keyLanes
    )
        throws(ConfigurationError) -> StageConfiguration
    {
        try StageConfiguration(service: service, inputs: inputs, dispatch: dispatch).applying(Settings(env))
    }

    /// This configuration with the stage's own flow settings applied (``Overrides``):
    /// `HALLMARK_<SERVICE>_<STAGE>_<SETTING>` where set; elsewhere the value already chosen
    /// (from `HALLMARK_<SETTING>` or the stage's default) stays.
    public func overriding(for stage: String, in env: [String: String]) throws(ConfigurationError) -> StageConfiguration {
        let settings = Settings(env)
        let own = Overrides(service: service, stage: stage)
        var config = self
        config.maxInFlight = try settings.valueIfSet(own.maxInFlight) ?? maxInFlight
        config.laneDepth = try settings.valueIfSet(own.laneDepth) ?? laneDepth
        config.maxBatch = try settings.valueIfSet(own.maxBatch) ?? maxBatch
        config.batchLinger = try settings.valueIfSet(own.batchLinger) ?? batchLinger
        config.batchPace = try settings.valueIfSet(own.batchPace) ?? batchPace
        config.batchWorkers = try settings.valueIfSet(own.batchWorkers) ?? batchWorkers
        return config
    }
}
