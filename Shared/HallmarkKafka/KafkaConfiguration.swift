import HallmarkCore

/// Connection settings shared by Hallmark's producers, consumers and topic admin.
///
/// Defaults suit the local Tansu broker (DESIGN.md §4): short session and heartbeat timeouts
/// make the first group assignment take about a second instead of about 23.
public struct KafkaConfiguration: Sendable {
    /// `bootstrap.servers` (``Variable/brokers``).
    public var brokers: String
    /// `client.id` (``Variable/clientID``).
    public var clientID: String
    /// `session.timeout.ms` for consumer groups (``Variable/sessionTimeout``).
    public var sessionTimeoutMilliseconds: Int
    /// `heartbeat.interval.ms` for consumer groups (``Variable/heartbeat``).
    public var heartbeatIntervalMilliseconds: Int
    /// `auto.commit.interval.ms` (``Variable/commitInterval``).
    public var commitIntervalMilliseconds: Int
    /// `fetch.wait.max.ms` (``Variable/fetchWait``): Tansu waits the full time even when data
    /// is there, so librdkafka's 500 ms would add that to latency.
    public var fetchWaitMaxMilliseconds: Int
    /// `linger.ms` (``Variable/linger``). Default 5, librdkafka's own: a broker's cost follows
    /// produce requests more than messages, and with no linger a moderate stream goes out a
    /// request per message or two. On Tansu at 5,000 msgs/s that tripled a hop's p99
    /// (docs/operations.md §2). With one request in flight (``requestsInFlight``), what is
    /// produced while a request is out still joins the next one.
    public var lingerMilliseconds: Int
    /// `max.in.flight.requests.per.connection` (``Variable/requestsInFlight``). Default 1:
    /// group commit, so a request carries whatever queued while the one before it was out; at
    /// low load a message waits for no timer, and under load batches grow by themselves. With
    /// librdkafka's 5 (and a 2 ms linger), the aggregator queued for seconds on Tansu under a
    /// paced stream of a fifth of its capacity (docs/operations.md §2).
    public var requestsInFlight: Int
    /// Partitions of a topic Hallmark creates (``Variable/partitions``).
    public var defaultPartitions: Int
    /// The largest message value Hallmark produces or accepts (``Variable/maxMessageBytes``):
    /// producers refuse larger values before they reach the broker, and topics Hallmark
    /// creates take values up to it (`max.message.bytes`, with room for the key and framing).
    public var maxMessageBytes: Int
    /// Any further librdkafka property; applied last, so it overrides everything above.
    public var properties: [String: String]

    public init(
        brokers: String = Variable.brokers.defaultValue,
        clientID: String = Variable.clientID.defaultValue,
        sessionTimeoutMilliseconds: Int = Variable.sessionTimeout.defaultValue,
        heartbeatIntervalMilliseconds: Int = Variable.heartbeat.defaultValue,
        commitIntervalMilliseconds: Int = Variable.commitInterval.defaultValue,
        fetchWaitMaxMilliseconds: Int = Variable.fetchWait.defaultValue,
        lingerMilliseconds: Int = Variable.linger.defaultValue,
        requestsInFlight: Int = Variable.requestsInFlight.defaultValue,
        defaultPartitions: Int = Variable.partitions.defaultValue,
        maxMessageBytes: Int = Variable.maxMessageBytes.defaultValue,
        properties: [String: String] = [:]
    ) {
        self.brokers = brokers
        self.clientID = clientID
        self.sessionTimeoutMilliseconds = sessionTimeoutMilliseconds
        self.heartbeatIntervalMilliseconds = heartbeatIntervalMilliseconds
        self.commitIntervalMilliseconds = commitIntervalMilliseconds
        self.fetchWaitMaxMilliseconds = fetchWaitMaxMilliseconds
        self.lingerMilliseconds = lingerMilliseconds
        self.requestsInFlight = requestsInFlight
        self.defaultPartitions = defaultPartitions
        self.maxMessageBytes = maxMessageBytes
        self.properties = properties
    }

    /// The variables, each declared once (`hallmark config` lists them).
    public enum Variable {
        public static let brokers = Setting.text(
            "HALLMARK_KAFKA_BROKERS", default: "127.0.0.1:9092", doc: "Kafka bootstrap servers (`bootstrap.servers`)")
        public static let clientID = Setting.text(
            "HALLMARK_KAFKA_CLIENT_ID", default: "hallmark", doc: "`client.id`, shown in broker logs")
        public static let partitions = Setting.integer(
            "HALLMARK_KAFKA_PARTITIONS", default: 4, in: 1...10_000, doc: "partitions of a topic Hallmark creates")
        public static let sessionTimeout = Setting.integer(
            "HALLMARK_KAFKA_SESSION_TIMEOUT_MS", default: 2000, in: 1...3_600_000,
            doc: "consumer group `session.timeout.ms` (short: the first assignment takes about a second, not 23)")
        public static let heartbeat = Setting.integer(
            "HALLMARK_KAFKA_HEARTBEAT_MS", default: 500, in: 1...3_600_000, doc: "consumer group `heartbeat.interval.ms`")
        public static let commitInterval = Setting.integer(
            "HALLMARK_KAFKA_COMMIT_INTERVAL_MS", default: 1000, in: 1...3_600_000,
            doc: "how often stored offsets are committed (`auto.commit.interval.ms`)")
        public static let fetchWait = Setting.integer(
            "HALLMARK_KAFKA_FETCH_WAIT_MS", default: 10, in: 0...300_000,
            doc: "how long the broker may hold a fetch (`fetch.wait.max.ms`)")
        public static let linger = Setting.integer(
            "HALLMARK_KAFKA_LINGER_MS", default: 5, in: 0...60_000,
            doc: "how long a producer waits to fill a batch (`linger.ms`); batches also form while a request is out")
        /// Up to 5: the idempotent producer keeps order only within that.
        public static let requestsInFlight = Setting.integer(
            "HALLMARK_KAFKA_REQUESTS_IN_FLIGHT", default: 1, in: 1...5,
            doc:
                "produce requests a producer has out per broker (`max.in.flight.requests.per.connection`); 1: each takes what queued meanwhile"
        )
        /// Up to 256 MiB: librdkafka's own ceiling on a message is 1,000,000,000 bytes.
        public static let maxMessageBytes = Setting.integer(
            "HALLMARK_MAX_MESSAGE_BYTES", default: 1 << 20, in: 4096...(256 << 20),
            doc: "the largest message Hallmark produces or accepts; larger inputs and results are `oversized`")
        public static let properties = Setting.optionalText(
            "HALLMARK_KAFKA_PROPERTIES",
            doc: "further librdkafka properties, `name=value` separated by commas or newlines; applied last"
        ).secret()

        /// Every variable, in the order `hallmark config` lists them.
        public static var all: [SettingDescription] {
            [
                brokers.description, clientID.description, partitions.description, sessionTimeout.description,
                heartbeat.description, commitInterval.description, fetchWait.description, linger.description,
                requestsInFlight.description,
                maxMessageBytes.description, properties.description,
            ]
        }
    }

    /// Reads the ``Variable``s; a value out of range throws, naming the variable.
    public static func fromEnvironment(_ environment: [String: String]) throws(ConfigurationError) -> KafkaConfiguration {
        let settings = Settings(environment)
        var config = KafkaConfiguration()
        config.brokers = try settings.value(Variable.brokers)
        config.clientID = try settings.value(Variable.clientID)
        config.defaultPartitions = try settings.value(Variable.partitions)
        config.sessionTimeoutMilliseconds = try settings.value(Variable.sessionTimeout)
        config.heartbeatIntervalMilliseconds = try settings.value(Variable.heartbeat)
        config.commitIntervalMilliseconds = try settings.value(Variable.commitInterval)
        config.fetchWaitMaxMilliseconds = try settings.value(Variable.fetchWait)
        config.lingerMilliseconds = try settings.value(Variable.linger)
        config.requestsInFlight = try settings.value(Variable.requestsInFlight)
        config.maxMessageBytes = try settings.value(Variable.maxMessageBytes)
        if let raw = try settings.value(Variable.properties) {
            config.properties = try parseProperties(raw)
        }
        return config
    }

    /// Room for a record's key, headers and framing beyond ``maxMessageBytes``.
    public static let recordOverheadBytes = 64 << 10

    static func parseProperties(_ raw: String) throws(ConfigurationError) -> [String: String] {
        var result: [String: String] = [:]
        for item in raw.split(whereSeparator: { $0 == "," || $0 == "\n" }) {
            let pair = item.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
            let trimmed = String(pair)
            if trimmed.isEmpty { continue }
            guard let eq = trimmed.firstIndex(of: "="), eq != trimmed.startIndex else {
                throw ConfigurationError(variable: "HALLMARK_KAFKA_PROPERTIES", reason: "an entry is not name=value")
            }
            result[String(trimmed[..<eq])] = String(trimmed[trimmed.index(after: eq)...])
        }
        return result
    }

    /// Properties common to every client, before role-specific ones.
    var baseProperties: [String: String] {
        ["bootstrap.servers": brokers, "client.id": clientID]
    }
}
