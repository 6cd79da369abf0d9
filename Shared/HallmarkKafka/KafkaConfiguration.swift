import HallmarkCore

/// Connection settings shared by Hallmark's producers, consumers and topic admin.
///
/// Defaults suit the local Tansu broker (DESIGN.md §4): short session and heartbeat timeouts
/// make the first group assignment take about a second instead of about 23.
public struct KafkaConfiguration: Sendable {
    /// `bootstrap.servers`. Default `127.0.0.1:9092`.
    public var brokers: String
    /// `client.id`, shown in broker logs. Default `hallmark`.
    public var clientID: String
    /// `session.timeout.ms` for consumer groups. Default 2000.
    public var sessionTimeoutMilliseconds: Int
    /// `heartbeat.interval.ms` for consumer groups. Default 500.
    public var heartbeatIntervalMilliseconds: Int
    /// How often stored offsets are committed (`auto.commit.interval.ms`). Default 1000.
    public var commitIntervalMilliseconds: Int
    /// `fetch.wait.max.ms`: how long the broker may hold a fetch. Default 10: Tansu waits the
    /// full time even when data is there, so librdkafka's 500 ms would add that to latency.
    public var fetchWaitMaxMilliseconds: Int
    /// `linger.ms`: how long a producer waits to fill a batch. Default 2. Longer batches mean
    /// fewer produce requests: at 5,000 msgs/s, 10 ms cut Tansu's CPU by about a fifth on 4
    /// partitions and by almost half on 2 (docs/operations.md §2), for up to 8 ms more per hop.
    public var lingerMilliseconds: Int
    /// Partition count used when Hallmark creates a missing topic. Default 4.
    public var defaultPartitions: Int
    /// The largest message value Hallmark produces or accepts, in bytes: producers refuse
    /// larger values before they reach the broker, and topics Hallmark creates take values up
    /// to it (`max.message.bytes`, with room for the record's key and framing).
    /// `HALLMARK_MAX_MESSAGE_BYTES`, default 1 MiB.
    public var maxMessageBytes: Int
    /// Any further librdkafka property; applied last, so it overrides everything above.
    public var properties: [String: String]

    public init(
        brokers: String = "127.0.0.1:9092",
        clientID: String = "hallmark",
        sessionTimeoutMilliseconds: Int = 2000,
        heartbeatIntervalMilliseconds: Int = 500,
        commitIntervalMilliseconds: Int = 1000,
        fetchWaitMaxMilliseconds: Int = 10,
        lingerMilliseconds: Int = 2,
        defaultPartitions: Int = 4,
        maxMessageBytes: Int = 1 << 20,
        properties: [String: String] = [:]
    ) {
        self.brokers = brokers
        self.clientID = clientID
        self.sessionTimeoutMilliseconds = sessionTimeoutMilliseconds
        self.heartbeatIntervalMilliseconds = heartbeatIntervalMilliseconds
        self.commitIntervalMilliseconds = commitIntervalMilliseconds
        self.fetchWaitMaxMilliseconds = fetchWaitMaxMilliseconds
        self.lingerMilliseconds = lingerMilliseconds
        self.defaultPartitions = defaultPartitions
        self.maxMessageBytes = maxMessageBytes
        self.properties = properties
    }

    /// Reads `HALLMARK_KAFKA_BROKERS`, `HALLMARK_KAFKA_CLIENT_ID`, `HALLMARK_KAFKA_PARTITIONS`,
    /// `HALLMARK_KAFKA_SESSION_TIMEOUT_MS`, `HALLMARK_KAFKA_HEARTBEAT_MS`,
    /// `HALLMARK_KAFKA_COMMIT_INTERVAL_MS`, `HALLMARK_KAFKA_FETCH_WAIT_MS`, `HALLMARK_KAFKA_LINGER_MS`,
    /// `HALLMARK_MAX_MESSAGE_BYTES`
    /// and the escape hatch `HALLMARK_KAFKA_PROPERTIES`: librdkafka properties as `name=value`
    /// pairs separated by commas or newlines (e.g. `linger.ms=5,compression.type=lz4`).
    public static func fromEnvironment(_ environment: [String: String]) throws(ConfigurationError) -> KafkaConfiguration {
        let settings = Settings(environment)
        var config = KafkaConfiguration()
        config.brokers = settings.string("HALLMARK_KAFKA_BROKERS", default: config.brokers)
        config.clientID = settings.string("HALLMARK_KAFKA_CLIENT_ID", default: config.clientID)
        config.defaultPartitions = try settings.integer(
            "HALLMARK_KAFKA_PARTITIONS", default: config.defaultPartitions,
            in: 1...10_000)
        config.sessionTimeoutMilliseconds = try settings.integer(
            "HALLMARK_KAFKA_SESSION_TIMEOUT_MS", default: config.sessionTimeoutMilliseconds, in: 1...3_600_000)
        config.heartbeatIntervalMilliseconds = try settings.integer(
            "HALLMARK_KAFKA_HEARTBEAT_MS", default: config.heartbeatIntervalMilliseconds, in: 1...3_600_000)
        config.commitIntervalMilliseconds = try settings.integer(
            "HALLMARK_KAFKA_COMMIT_INTERVAL_MS", default: config.commitIntervalMilliseconds, in: 1...3_600_000)
        config.fetchWaitMaxMilliseconds = try settings.integer(
            "HALLMARK_KAFKA_FETCH_WAIT_MS", default: config.fetchWaitMaxMilliseconds, in: 0...300_000)
        config.lingerMilliseconds = try settings.integer(
            "HALLMARK_KAFKA_LINGER_MS", default: config.lingerMilliseconds, in: 0...60_000)
        // Up to 256 MiB: librdkafka's own ceiling on a message is 1,000,000,000 bytes.
        config.maxMessageBytes = try settings.integer(
            "HALLMARK_MAX_MESSAGE_BYTES", default: config.maxMessageBytes,
            in: 4096...(256 << 20))
        if let raw = settings.string("HALLMARK_KAFKA_PROPERTIES") {
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
