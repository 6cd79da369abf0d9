import AggregatorCore
import ArgumentParser
import Foundation
import HallmarkCrypto
import HallmarkPostgres
import Logging

/// `hallmark aggregator tiles --out DIR`: writes the log as C2SP tlog-tiles under DIR, read
/// from the aggregator's PostgreSQL: `checkpoint` (the latest signed note), every hash tile
/// and entry bundle its tree needs (``TileDirectory``). Tiles never change, so those already
/// in DIR are kept. Each file is written whole and renamed into place, and the checkpoint
/// last, so a static server or a CDN carrying DIR never serves a checkpoint whose tiles are
/// missing. The aggregator can keep such a directory itself (`HALLMARK_AGGREGATOR_TILES_DIR`).
package struct TilesCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "tiles", abstract: "Write the log's checkpoint, tiles and entry bundles (C2SP tlog-tiles) to a directory.")

    @Option(help: "The directory (created when missing).") var out: String

    package init() {}

    static let postgresURLVariables = ["HALLMARK_AGGREGATOR_POSTGRES_URL", PostgresConfiguration.urlVariable]

    package func run() async throws {
        var logger = Logger(label: "hallmark.aggregator.tiles")
        logger.logLevel = .warning
        let env = ProcessInfo.processInfo.environment
        let schema = try AggregatorConfiguration.fromEnvironment(env).schema
        let pool = PostgresPool(
            configuration: try PostgresConfiguration.fromEnvironment(env, urlVariables: Self.postgresURLVariables),
            logger: logger)
        defer { pool.close() }
        let written = try await pool.withConnection { connection in
            try await TileDirectory(path: out).write(LogStore(schema: schema), on: connection)
        }
        if written.ahead {
            print("\(out) already serves a larger checkpoint (tree size \(written.treeSize)); left as it is")
        } else {
            print("wrote tree size \(written.treeSize) to \(out): \(written.written) tiles written, \(written.kept) kept")
        }
    }
}
