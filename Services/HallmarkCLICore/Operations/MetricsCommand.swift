import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkMessages
import Logging

/// `hallmark metrics --json`: the latest snapshot of every instance on `hallmark.metrics`, as a
/// JSON array (by service, then instance), for scripts.
package struct MetricsCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Print the latest metrics snapshot of every service instance (reads hallmark.metrics).",
        subcommands: [MetricsServeCommand.self])

    @Flag(help: "Print the snapshots as a JSON array (the only format today).") var json = false
    @Option(help: "Only this service's instances.") var service: String?
    @Option(help: "Leave out instances whose latest snapshot is older than this many seconds (0: keep all).")
    var maxAge = 0
    @Option(help: "Seconds to spend reading the topic at most.") var timeout = 20

    package init() {}

    // Checked in `run`, not `validate`: ArgumentParser validates this command before running
    // its `serve` subcommand too.
    package func run() async throws {
        guard json else { throw ValidationError("say --json: the snapshots are printed as JSON") }
        guard maxAge >= 0, timeout > 0 else { throw ValidationError("--max-age must be ≥ 0 and --timeout > 0") }
        var logger = Logger(label: "hallmark.metrics")
        logger.logLevel = .warning
        let feed = try MetricsFeed(environment: ProcessInfo.processInfo.environment, logger: logger)
        let board = try await feed.readToEnd(timeout: .seconds(timeout))
        let now = Date()
        let snapshots = board.snapshots.filter { snapshot in
            guard service == nil || snapshot.service == service else { return false }
            guard maxAge > 0 else { return true }
            return now.timeIntervalSince(snapshot.producedAt.date) <= Double(maxAge)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(snapshots), as: UTF8.self))
    }
}
