import HallmarkKafka
import HallmarkRuntime
import Logging

extension KafkaProducer {
    /// The CLI's producer: what it sends are CloudEvents too (source `/hallmark/cli`), as every
    /// service's messages are; the services never trust the headers of what they read.
    static func cli(_ configuration: KafkaConfiguration, logger: Logger) throws -> KafkaProducer {
        try KafkaProducer(configuration: configuration, logger: logger, stamp: CloudEvents.stamp(service: "cli"))
    }
}
