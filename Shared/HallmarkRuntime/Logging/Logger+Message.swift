import HallmarkKafka
import Logging
import HallmarkMessages

extension Logger {
    /// This logger carrying a consumed message's source (and its id, when known): what a
    /// stage's log lines about one message say.
    func about(_ message: KafkaMessage, id: MessageID?) -> Logger {
        var log = self
        log[metadataKey: "topic"] = "\(message.topic)"
        log[metadataKey: "partition"] = "\(message.partition)"
        log[metadataKey: "offset"] = "\(message.offset)"
        if let id { log[metadataKey: "message_id"] = "\(id)" }
        return log
    }
}
