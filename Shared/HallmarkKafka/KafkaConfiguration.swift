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
    /// Partition count used when Hallmark creates a missing topic. Default 4.
    public var defaultPartitions: Int
    /// Any further librdkafka property; applied last, so it overrides everything above.
    public var properties: [String: String]

    public init(
        brokers: String = "127.0.0.1:9092",
        clientID: String = "hallmark",
        sessionTimeoutMilliseconds: Int = 2000,
        heartbeatIntervalMilliseconds: Int = 500,
        commitIntervalMilliseconds: Int = 1000,
        fetchWaitMaxMilliseconds: Int = 10,
        defaultPartitions: Int = 4,
        properties: [String: String] = [:]
    ) {
        self.brokers = brokers
        self.clientID = clientID
        self.sessionTimeoutMilliseconds = sessionTimeoutMilliseconds
        self.heartbeatIntervalMilliseconds = heartbeatIntervalMilliseconds
        self.commitIntervalMilliseconds = commitIntervalMilliseconds
        self.fetchWaitMaxMilliseconds = fetchWaitMaxMilliseconds
        self.defaultPartitions = defaultPartitions
        self.properties = properties
    }

    /// Reads `HALLMARK_KAFKA_BROKERS`, `HALLMARK_KAFKA_CLIENT_ID`, `HALLMARK_KAFKA_PARTITIONS`,
    /// `HALLMARK_KAFKA_SESSION_TIMEOUT_MS`, `HALLMARK_KAFKA_HEARTBEAT_MS`,
    /// `HALLMARK_KAFKA_COMMIT_INTERVAL_MS`, `HALLMARK_KAFKA_FETCH_WAIT_MS` and the escape hatch `HALLMARK_KAFKA_PROPERTIES`:
    /// librdkafka properties as `name=value` pairs separated by commas or newlines
    /// (e.g. `linger.ms=5,compression.type=lz4`).
    public static func fromEnvironment(_ environment: [String: String]) throws -> KafkaConfiguration {
        var config = KafkaConfiguration()
        if let v = environment["HALLMARK_KAFKA_BROKERS"], !v.isEmpty { config.brokers = v }
        if let v = environment["HALLMARK_KAFKA_CLIENT_ID"], !v.isEmpty { config.clientID = v }
        func int(_ name: String) throws -> Int? {
            guard let raw = environment[name], !raw.isEmpty else { return nil }
            guard let value = Int(raw), value > 0 else {
                throw KafkaError(.configuration, "\(name) must be a positive integer")
            }
            return value
        }
        if let v = try int("HALLMARK_KAFKA_PARTITIONS") { config.defaultPartitions = v }
        if let v = try int("HALLMARK_KAFKA_SESSION_TIMEOUT_MS") { config.sessionTimeoutMilliseconds = v }
        if let v = try int("HALLMARK_KAFKA_HEARTBEAT_MS") { config.heartbeatIntervalMilliseconds = v }
        if let v = try int("HALLMARK_KAFKA_COMMIT_INTERVAL_MS") { config.commitIntervalMilliseconds = v }
        if let v = try int("HALLMARK_KAFKA_FETCH_WAIT_MS") { config.fetchWaitMaxMilliseconds = v }
        if let raw = environment["HALLMARK_KAFKA_PROPERTIES"] {
            config.properties = try parseProperties(raw)
        }
        return config
    }

    static func parseProperties(_ raw: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for item in raw.split(whereSeparator: { $0 == "," || $0 == "\n" }) {
            let pair = item.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
            let trimmed = String(pair)
            if trimmed.isEmpty { continue }
            guard let eq = trimmed.firstIndex(of: "="), eq != trimmed.startIndex else {
                throw KafkaError(.configuration, "HALLMARK_KAFKA_PROPERTIES entry is not name=value")
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
