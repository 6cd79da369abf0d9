import ArgumentParser
import EdgeCore
import Foundation
import HallmarkKafka
import HallmarkRuntime
import Logging
import ServiceLifecycle

/// `hallmark bench edge-floor` (hidden): the bare HTTP front `hallmark bench edge` starts as a
/// process of its own to measure the edge's floor (``EdgeFloorFront``). It runs until SIGTERM.
package struct BenchEdgeFloorCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "edge-floor",
        abstract: "The bare HTTP front of bench edge's floor (started by bench edge).",
        shouldDisplay: false)

    @Option(help: "Port on 127.0.0.1.") var port: Int
    @Option(help: "Topic the submissions are published to.") var submissions: String
    @Option(help: "Topic of their outcomes.") var results: String

    package init() {}

    package func run() async throws {
        var logger = Logger(label: "hallmark.bench.edge-floor") { JSONLogHandler(label: $0) }
        logger.logLevel = .info
        // The settings the services run with, as the edge's producer and answer reader have them.
        let kafka = try KafkaConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        let producer = try KafkaProducer(configuration: kafka, logger: logger)
        let answers = try AnswerRouter(
            transport: .kafka(kafka, producer: producer, logger: logger), topics: [results], instance: "bench-edge-floor")
        let front = EdgeFloorFront(
            producer: producer, answers: answers, topic: submissions, port: port,
            wait: EdgeConfiguration().answerWait, logger: logger)
        // The front stops first, then the answers it waits on.
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: answers), .init(service: front)], gracefulShutdownSignals: [.sigterm],
                logger: logger))
        try await group.run()
        await producer.close()
    }
}
