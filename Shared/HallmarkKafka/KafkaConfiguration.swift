import HallmarkCore

/// Connection settings shared by Hallmark's producers, consumers and topic admin.
///
/// Defaults suit the local Tansu broker (DESIGN.md §4): short session and heartbeat timeouts
/// make the first group assignment take about a second instead of about 23.
public struct KafkaConfiguration: DeclaredSettings {
    /// `bootstrap.servers` .
    public var brokers: String
    /// `client.id` .
    public var clientID: String
    /// `session.timeout.ms` for consumer groups .
    public var sessionTimeoutMilliseconds: Int
    /// `heartbeat.interval.ms` for consumer groups .
    public var heartbeatIntervalMilliseconds: Int
    /// `auto.commit.interval.ms` .
    public var commitIntervalMilliseconds: Int
    /// `fetch.wait.max.ms` : Tansu waits the full time even when data
    /// is there, so librdkafka's 500 ms would add that to latency.
    public var fetchWaitMaxMilliseconds: Int
    /// Quiet time after which a consumer rests its fetching (``FetchRest``); 0 never rests.
    public var idleAfterMilliseconds: Int
    /// The longest interval between a resting consumer's checks of its end offsets: the most a
    /// message that arrives at an idle consumer waits, unless its own process's producing
    /// wakes it first.
    public var idleFetchIntervalMilliseconds: Int
    /// `linger.ms` . Default 5, librdkafka's own: a broker's cost follows
    /// produce requests more than messages, and with no linger a moderate stream goes out a
    /// request per message or two. On Tansu at 5,000 msgs/s that tripled a hop's p99
    /// (docs/operations.md §2). With one request in flight (``requestsInFlight``), what is
    /// produced while a request is out still joins the next one.
    public var lingerMilliseconds: Int
    /// `max.in.flight.requests.per.connection` . Default 1:
    /// group commit, so a request carries whatever queued while the one before it was out; at
    /// low load a message waits for no timer, and under load batches grow by themselves. With
    /// librdkafka's 5 (and a 2 ms linger), the aggregator queued for seconds on Tansu under a
    /// paced stream of a fifth of its capacity (docs/operations.md §2).
    public var requestsInFlight: Int
    /// Partitions of a topic Hallmark creates .
    public var defaultPartitions: Int
    /// The largest message value Hallmark produces or accepts :
    /// producers refuse larger values before they reach the broker, and topics Hallmark
    /// creates take values up to it (`max.message.bytes`, with room for the key and framing).
    public var maxMessageBytes: Int
    /// Any further librdkafka property; applied last, so it overrides everything above.
    public var properties: [String: String]

    public init(
        brokers: String = declared(\.brokers),
        clientID: String = declared(\.clientID),
        sessionTimeoutMilliseconds: Int = declared(\.sessionTimeoutMilliseconds),
        heartbeatIntervalMilliseconds: Int = declared(\.heartbeatIntervalMilliseconds),
        commitIntervalMilliseconds: Int = declared(\.commitIntervalMilliseconds),
        fetchWaitMaxMilliseconds: Int = declared(\.fetchWaitMaxMilliseconds),
        idleAfterMilliseconds: Int = declared(\.idleAfterMilliseconds),
        idleFetchIntervalMilliseconds: Int = declared(\.idleFetchIntervalMilliseconds),
        lingerMilliseconds: Int = declared(\.lingerMilliseconds),
        requestsInFlight: Int = declared(\.requestsInFlight),
        defaultPartitions: Int = declared(\.defaultPartitions),
        maxMessageBytes: Int = declared(\.maxMessageBytes),
        properties: [String: String] = [:]
    ) {
        self.brokers = brokers
        self.clientID = clientID
        self.sessionTimeoutMilliseconds = sessionTimeoutMilliseconds
        self.heartbeatIntervalMilliseconds = heartbeatIntervalMilliseconds
        self.commitIntervalMilliseconds = commitIntervalMilliseconds
        self.fetchWaitMaxMilliseconds = fetchWaitMaxMilliseconds
        self.idleAfterMilliseconds = idleAfterMilliseconds
        self.idleFetchIntervalMilliseconds = idleFetchIntervalMilliseconds
        self.lingerMilliseconds = lingerMilliseconds
        self.requestsInFlight = requestsInFlight
        self.defaultPartitions = defaultPartitions
        self.maxMessageBytes = maxMessageBytes
        self.properties = properties
    }

    /// Every setting, in the order `hallmark config` lists them.
    public static let settings: [ConfigurationSetting<Self>] = [
        .bind(
            \.brokers,
            .text("HALLMARK_KAFKA_BROKERS", default: "127.0.0.1:9092", doc: "Kafka bootstrap servers (`bootstrap.servers`)")),
        .bind(\.clientID, .text("HALLMARK_KAFKA_CLIENT_ID", default: "hallmark", doc: "`client.id`, shown in broker logs")),
        .bind(
            \.defaultPartitions,
            .integer("HALLMARK_KAFKA_PARTITIONS", default: 4, in: 1...10_000, doc: "partitions of a topic Hallmark creates")),
        .bind(
            \.sessionTimeoutMilliseconds,
            .integer(
                "HALLMARK_KAFKA_SESSION_TIMEOUT_MS", default: 2000, in: 1...3_600_000,
                doc: "consumer group `session.timeout.ms` (short: the first assignment takes about a second, not 23)")),
        .bind(
            \.heartbeatIntervalMilliseconds,
            .integer(
                "HALLMARK_KAFKA_HEARTBEAT_MS", default: 500, in: 1...3_600_000, doc: "consumer group `heartbeat.interval.ms`")),
        .bind(
            \.commitIntervalMilliseconds,
            .integer(
                "HALLMARK_KAFKA_COMMIT_INTERVAL_MS", default: 1000, in: 1...3_600_000,
                doc: "how often stored offsets are committed (`auto.commit.interval.ms`)")),
        .bind(
            \.fetchWaitMaxMilliseconds,
            .integer(
                "HALLMARK_KAFKA_FETCH_WAIT_MS", default: 10, in: 0...300_000,
                doc: "how long the broker may hold a fetch (`fetch.wait.max.ms`)")),
        // An idle stack's cost is its consumers' empty fetches (docs/operations.md §2).
        .bind(
            \.idleAfterMilliseconds,
            .integer(
                "HALLMARK_KAFKA_IDLE_AFTER_MS", default: 1000, in: 0...3_600_000,
                doc:
                    "quiet time after which a consumer stops fetching and only checks its end offsets (0: never); a moved end, a resume or the process producing wakes it"
            )),
        .bind(
            \.idleFetchIntervalMilliseconds,
            .integer(
                "HALLMARK_KAFKA_IDLE_FETCH_MS", default: 250, in: 1...60_000,
                doc: "the longest interval between an idle consumer's checks: the most a message after a quiet spell waits")),
        .bind(
            \.lingerMilliseconds,
            .integer(
                "HALLMARK_KAFKA_LINGER_MS", default: 5, in: 0...60_000,
                doc: "how long a producer waits to fill a batch (`linger.ms`); batches also form while a request is out")),
        // Up to 5: the idempotent producer keeps order only within that.
        .bind(
            \.requestsInFlight,
            .integer(
                "HALLMARK_KAFKA_REQUESTS_IN_FLIGHT", default: 1, in: 1...5,
                doc:
                    "produce requests a producer has out per broker (`max.in.flight.requests.per.connection`); 1: each takes what queued meanwhile"
            )),
        // Up to 256 MiB: librdkafka's own ceiling on a message is 1,000,000,000 bytes.
        .bind(
            \.maxMessageBytes,
            .integer(
                "HALLMARK_MAX_MESSAGE_BYTES", default: 1 << 20, in: 4096...(256 << 20),
                doc: "the largest message Hallmark produces or accepts; larger inputs and results are `oversized`")),
        .bind(
            \.properties,
            Setting.optionalText(
                "HALLMARK_KAFKA_PROPERTIES",
                doc: "further librdkafka properties, `name=value` separated by commas or newlines; applied last"
            ).secret(), as: { raw throws(ConfigurationError) in try raw.map(parseProperties) ?? [:] }),
    ]

    /// Reads the declared settings; a value out of range throws, naming the variable.
    public static func fromEnvironment(_ environment: [String: String]) throws(ConfigurationError) -> KafkaConfiguration {
        try KafkaConfiguration().applying(Settings(environment))
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
