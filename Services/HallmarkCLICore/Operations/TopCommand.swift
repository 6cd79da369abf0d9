import ArgumentParser
import Dispatch
import Foundation
import HallmarkKafka
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `hallmark top`: a live view of every service instance from `hallmark.metrics` and
/// `hallmark.security` (see ``MetricsBoard``). It redraws in place once a second, fits 80
/// columns, and exits cleanly on `q` or Ctrl-C: the terminal restored at once, the consumer
/// closed within 2 s.
package struct TopCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "top", abstract: "Live view of the services' metrics and security events (q or Ctrl-C quits).")

    @Option(help: "Seconds between redraws.") var interval = 1.0
    @Flag(help: "Read the topics to their end, print one frame and exit (for scripts and pipes).") var once = false

    package init() {}

    package func validate() throws {
        guard interval >= 0.1, interval <= 60 else { throw ValidationError("--interval must be between 0.1 and 60 seconds") }
    }

    package func run() async throws {
        var logger = Logger(label: "hallmark.top")
        logger.logLevel = .error
        let feed = try MetricsFeed(environment: ProcessInfo.processInfo.environment, logger: logger)
        let source = "\(feed.metricsTopic) @ \(feed.kafka.brokers)"
        if once {
            let board = try await feed.readToEnd(timeout: .seconds(20))
            print(board.render(now: Date(), source: source).joined(separator: "\n"))
            return
        }

        let consumer = try feed.consumer(topics: [feed.metricsTopic, feed.securityTopic])
        try consumer.start()
        let board = SharedBoard()
        let pause = Duration.milliseconds(Int(interval * 1000))
        let terminal = Terminal()
        let (quits, quit) = AsyncStream<Void>.makeStream()
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { quit.yield() }
            source.resume()
            return source
        }
        if isatty(STDIN_FILENO) == 1 { Terminal.watchKeys { quit.yield() } }

        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in consumer.messages {
                    board.state.withLock { feed.ingest(message, into: &$0) }
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    terminal.draw(board.state.withLock { $0.render(now: Date(), source: source) })
                    try? await Task.sleep(for: pause)
                }
            }
            for await _ in quits { break }
            consumer.beginClose()
            group.cancelAll()
        }
        signals.forEach { $0.cancel() }
        terminal.restore()
        await Self.close(consumer, waitingAtMost: .seconds(2))
    }

    /// Closes the viewer's consumer, waiting at most `grace`: its group is its own and commits
    /// nothing, so leaving it politely is worth a moment, not a wait on a busy broker (a close
    /// during the group's first join waits for the join; on a loaded broker that took over
    /// 20 s). Past the grace the process exits and the broker drops the member by its session
    /// timeout.
    static func close(_ consumer: KafkaConsumer, waitingAtMost grace: Duration) async {
        let closed = Mutex(false)
        Task {
            await consumer.close()
            closed.withLock { $0 = true }
        }
        let deadline = ContinuousClock.now + grace
        while !closed.withLock({ $0 }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// The board, shared by the reader and the drawer.
private final class SharedBoard: Sendable {
    let state = Mutex(MetricsBoard())
}
