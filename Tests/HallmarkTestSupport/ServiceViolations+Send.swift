import Foundation
import HallmarkCore
import HallmarkKafka

extension ServiceViolations {
    /// Sends each list to its topic on one key (documents already sent on an earlier list are
    /// left out), each list followed by a sentinel on the same key, whose answer therefore
    /// comes after every other one's. Returns everything sent, sentinels included, in order.
    public static func send(_ inputs: [(topic: String, sent: [Sent])], producer: KafkaProducer) async throws -> [Sent] {
        var all: [Sent] = [], seen = Set<String>()
        let key = Array("violations".utf8)
        for (topic, list) in inputs {
            let sent = distinct(list, seen: &seen)
            for s in sent { try await producer.send(topic: topic, key: key, value: s.bytes) }
            let sentinel = Self.sent("sentinel", "not JSON", .string("sentinel \(UUID())"), accepted: [])
            try await producer.send(topic: topic, key: key, value: sentinel.bytes)
            all += sent + [sentinel]
        }
        return all
    }
}
