import HallmarkClient
import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkKafka
import HallmarkRuntime
import Logging

/// `hallmark traffic …`: sample traffic through the running stack, with a summary.
package struct TrafficCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "traffic", abstract: "Send sample traffic to running services and show the answers.",
        subcommands: [
            ProbeTrafficCommand.self, SignerTrafficCommand.self, AuthorityTrafficCommand.self,
            GatewayTrafficCommand.self, AggregatorTrafficCommand.self,
        ])

    package init() {}
}

/// `hallmark traffic probe`: requests (and a few poison messages) to the probe stage.
package struct ProbeTrafficCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "probe", abstract: "Send probe requests and poison messages; wait for every answer.")

    @Option(help: "Valid requests to send.") var count = 200
    @Option(help: "Poison messages to send (they must land in the rejected topic).") var poison = 3
    @Option(help: "Seconds to wait for the answers.") var timeout = 60

    package init() {}

    package func run() async throws {
        var logger = Logger(label: "hallmark.traffic")
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        let settings = Settings(env)
        let input = try settings.value(CLIVariables.Probe.input), output = try settings.value(CLIVariables.Probe.output)
        let rejectedTopic = try settings.value(StageConfiguration.Variable.rejectedTopic)
        let kafka = try KafkaConfiguration.fromEnvironment(env)
        let producer = try KafkaProducer.cli(kafka, logger: logger)
        // Readers join first, from the end, so they see exactly this run's answers.
        var readerConfig = kafka
        readerConfig.properties["auto.offset.reset"] = "latest"
        let results = try TopicWatcher(kafka: readerConfig, topic: output, logger: logger)
        let rejected = try TopicWatcher(kafka: readerConfig, topic: rejectedTopic, logger: logger)
        try await Task.sleep(for: .seconds(3))

        let start = ContinuousClock.now
        var ids = Set<MessageID>()
        for i in 0..<count {
            let id = MessageID.random()
            ids.insert(id)
            let body = #"{"schema":"hallmark.probe.request.v1","id":"\#(id)","produced_at":"\#(Timestamp.now().text)","n":\#(i)}"#
            try await producer.send(topic: input, key: Array("sample-\(i % 8)".utf8), value: Array(body.utf8))
        }
        let poisonSamples = ["{not json", #"{"schema":"hallmark.probe.request.v1","id":"x"}"#, "[]"]
        for i in 0..<poison {
            try await producer.send(topic: input, key: nil, value: Array(poisonSamples[i % poisonSamples.count].utf8))
        }
        print("sent \(count) probe requests and \(poison) poison messages to \(input)")

        let answered = await results.collect(timeout: .seconds(timeout)) { value in
            Self.field("correlation_id", value).flatMap(MessageID.init).map { ids.contains($0) } ?? false
        } until: {
            $0 >= ids.count
        }
        let bounced = await rejected.collect(timeout: .seconds(5)) { value in
            Self.field("source", value) != nil
        } until: {
            $0 >= poison
        }
        let seconds = Double((ContinuousClock.now - start).components.seconds)
        print(
            "answered \(answered)/\(count) on \(output) in ~\(Int(seconds)) s; \(bounced)/\(poison) poison messages in \(rejectedTopic)"
        )
        await producer.close()
        if answered < count || bounced < poison { throw ExitCode.failure }
    }

    static func field(_ name: String, _ value: [UInt8]) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(value)) as? [String: Any] else { return nil }
        if let s = object[name] as? String { return s }
        return object[name] != nil ? "present" : nil
    }
}
