import HallmarkCore
import HallmarkKafka
import Testing

@Suite(.timeLimit(.minutes(2)))
struct KafkaConfigurationTests {
    @Test func environmentOverridesDefaults() throws {
        let config = try KafkaConfiguration.fromEnvironment([
            "HALLMARK_KAFKA_BROKERS": "10.0.0.1:9092",
            "HALLMARK_KAFKA_PARTITIONS": "8",
            "HALLMARK_KAFKA_PROPERTIES": "linger.ms=5, compression.type=lz4\nsasl.username=a=b",
        ])
        #expect(config.brokers == "10.0.0.1:9092")
        #expect(config.defaultPartitions == 8)
        #expect(config.sessionTimeoutMilliseconds == 2000)
        #expect(config.heartbeatIntervalMilliseconds == 500)
        #expect(config.lingerMilliseconds == 5 && config.requestsInFlight == 1)
        #expect(config.properties == ["linger.ms": "5", "compression.type": "lz4", "sasl.username": "a=b"])
    }

    @Test func malformedEnvironmentIsATypedError() {
        #expect(throws: ConfigurationError(variable: "HALLMARK_KAFKA_PARTITIONS", reason: "must be an integer in 1...10000")) {
            try KafkaConfiguration.fromEnvironment(["HALLMARK_KAFKA_PARTITIONS": "x"])
        }
        #expect(throws: ConfigurationError.self) { try KafkaConfiguration.fromEnvironment(["HALLMARK_KAFKA_PROPERTIES": "=v"]) }
        #expect(throws: ConfigurationError.self) { try KafkaConfiguration.fromEnvironment(["HALLMARK_MAX_MESSAGE_BYTES": "0"]) }
        #expect(
            (try? KafkaConfiguration.fromEnvironment(["HALLMARK_MAX_MESSAGE_BYTES": "2097152"]))?.maxMessageBytes == 2_097_152)
        #expect((try? KafkaConfiguration.fromEnvironment(["HALLMARK_KAFKA_LINGER_MS": "10"]))?.lingerMilliseconds == 10)
        #expect(throws: ConfigurationError(variable: "HALLMARK_KAFKA_LINGER_MS", reason: "must be an integer in 0...60000")) {
            try KafkaConfiguration.fromEnvironment(["HALLMARK_KAFKA_LINGER_MS": "-1"])
        }
    }

    @Test func unknownPropertyIsRejectedWithoutItsValue() throws {
        var config = KafkaConfiguration()
        config.properties = ["no.such.property": "secret-value"]
        do {
            _ = try KafkaProducer(configuration: config, logger: KafkaTestSupport.logger)
            Issue.record("expected a configuration error")
        } catch let error as KafkaError {
            #expect(error.code == .configuration)
            #expect(!error.description.contains("secret-value"))
        }
    }
}
