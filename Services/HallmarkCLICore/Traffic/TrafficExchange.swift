import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages
import Logging

/// One round of sample traffic: send requests, collect their results by `request_id`.
enum TrafficExchange {
    /// Starts a reader at the end of `output`, runs `send`, and collects the results whose
    /// `request_id` is one of `ids` (raw bytes by request id).
    static func run(
        kafka: KafkaConfiguration, output: String, ids: [MessageID], timeout seconds: Int, logger: Logger,
        send: () async throws -> Void
    ) async throws -> [MessageID: [UInt8]] {
        var readerConfig = kafka
        readerConfig.properties["auto.offset.reset"] = "latest"
        let consumer = try KafkaConsumer(
            configuration: readerConfig, groupID: "hallmark-traffic-\(MessageID.random())",
            topics: [output], wakesOnProduce: true, logger: logger)
        try consumer.start()
        try await Task.sleep(for: .seconds(3))  // the reader's assignment, so it sees this run's answers
        try await send()
        let timer = Task {
            try? await Task.sleep(for: .seconds(seconds))
            consumer.beginClose()
        }
        let wanted = Set(ids)
        var found: [MessageID: [UInt8]] = [:]
        for await message in consumer.messages {
            guard let object = try? JSONSerialization.jsonObject(with: Data(message.value)) as? [String: Any],
                let id = (object["request_id"] as? String).flatMap(MessageID.init), wanted.contains(id)
            else { continue }
            found[id] = message.value
            if found.count == wanted.count { break }
        }
        timer.cancel()
        await consumer.close()
        return found
    }
}
