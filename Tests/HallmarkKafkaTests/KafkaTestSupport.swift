import Foundation
import HallmarkKafka
import Logging

/// The broker the integration tests use: `HALLMARK_KAFKA_BROKERS` (deploy/local/up sets it).
enum KafkaTestSupport {
    static var configuration: KafkaConfiguration {
        var config = KafkaConfiguration()
        if let brokers = ProcessInfo.processInfo.environment["HALLMARK_KAFKA_BROKERS"] { config.brokers = brokers }
        config.clientID = "hallmark-kafka-tests"
        return config
    }

    static let logger: Logger = {
        var logger = Logger(label: "kafka-tests")
        logger.logLevel = .warning
        return logger
    }()

    static func uniqueName(_ prefix: String) -> String {
        "\(prefix).\(UUID().uuidString.prefix(8).lowercased())"
    }
}
