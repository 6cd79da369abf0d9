import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkMessages
import Hummingbird
import Logging
import ServiceLifecycle

/// `hallmark metrics serve`: reads `hallmark.metrics` and serves every instance's latest
/// snapshot to Prometheus at `GET /metrics` (``MetricsBridge``), until SIGTERM or SIGINT.
package struct MetricsServeCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve hallmark.metrics to Prometheus: GET /metrics in the text exposition format.")

    @Option(help: "Where to listen: [host]:port; no host is every interface, port 0 any free port.")
    var listen = ":9464"

    package init() {}

    package func validate() throws { _ = try Self.address(listen) }

    package func run() async throws {
        var logger = Logger(label: "hallmark.metrics.serve")
        logger.logLevel = .notice
        let feed = try MetricsFeed(environment: ProcessInfo.processInfo.environment, logger: logger)
        let bridge = MetricsBridge()
        let (host, port) = try Self.address(listen)
        let router = Router()
        router.get("metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: bridge.exposition())))
        }
        router.get("health") { _, _ -> String in "ok\n" }
        let topic = feed.metricsTopic
        let app = Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "hallmark-metrics"),
            onServerRunning: { channel in
                // One line a script (or a test) can wait for, with the port actually bound.
                let bound = channel.localAddress?.port ?? port
                let line = "hallmark metrics serve: reading \(topic), serving http://\(host):\(bound)/metrics\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            }, logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: MetricsReader(feed: feed, bridge: bridge)), .init(service: app)],
                gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// `[host]:port` → host (every interface when empty) and port.
    static func address(_ text: String) throws -> (String, Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port)
        else { throw ValidationError("--listen must be [host]:port, e.g. :9464 or 127.0.0.1:9464") }
        let host = String(text[..<colon])
        return (host.isEmpty ? "0.0.0.0" : host, port)
    }
}

/// Reads `hallmark.metrics` from its start into a ``MetricsBridge`` until shutdown.
struct MetricsReader: Service {
    let feed: MetricsFeed
    let bridge: MetricsBridge

    func run() async throws {
        let consumer = try feed.consumer(topics: [feed.metricsTopic])
        try consumer.start()
        await withGracefulShutdownHandler {
            for await message in consumer.messages {
                if let snapshot = try? JSONCoding.decode(Message<MetricsSnapshot>.self, from: message.value) {
                    bridge.add(snapshot)
                }
            }
        } onGracefulShutdown: {
            consumer.beginClose()
        }
        await consumer.close()
    }
}
