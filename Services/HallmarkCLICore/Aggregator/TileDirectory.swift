import AggregatorCore
import Foundation
import HallmarkCrypto
import HallmarkPostgres

/// A directory holding the log as C2SP tlog-tiles (`checkpoint`, `tile/<L>/…`,
/// `tile/entries/…`), brought up to the latest checkpoint from the aggregator's tables.
package struct TileDirectory {
    package let path: String

    package init(path: String) { self.path = path }

    package struct Written: Sendable {
        package var treeSize: UInt64 = 0
        package var written = 0
        package var kept = 0
    }

    package func write(_ store: LogStore, on connection: PostgresConnection) async throws -> Written {
        guard let checkpoint = try await store.latestCheckpoint(on: connection) else {
            throw TileDirectoryError("the log is empty: there is no checkpoint yet")
        }
        guard let note = checkpoint.note else {
            throw TileDirectoryError("the latest checkpoint has no signed note (it predates HALLMARK_AGGREGATOR_LOG_ORIGIN)")
        }
        var result = Written(treeSize: checkpoint.treeSize)
        for tile in TileCoordinate.tiles(treeSize: checkpoint.treeSize) {
            let file = path + "/" + tile.description
            if tile.isFull, FileManager.default.fileExists(atPath: file) {
                result.kept += 1
                continue
            }
            guard let bytes = try await store.tile(tile, on: connection) else {
                throw TileDirectoryError("\(tile) is missing from the stored tree")
            }
            try Self.replace(file, with: bytes)
            result.written += 1
        }
        try Self.replace(path + "/checkpoint", with: Data(note.utf8))
        return result
    }

    /// Writes `bytes` to a temporary file beside `file`, then renames it over `file`.
    static func replace(_ file: String, with bytes: Data) throws {
        let url = URL(fileURLWithPath: file)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        try bytes.write(to: temporary)
        guard rename(temporary.path, url.path) == 0 else {
            throw TileDirectoryError("cannot rename a tile into \(url.deletingLastPathComponent().path)")
        }
    }
}

/// Why a tile directory could not be written.
struct TileDirectoryError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
