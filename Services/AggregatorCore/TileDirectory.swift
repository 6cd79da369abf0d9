import Dispatch
import Foundation
import HallmarkCrypto
import HallmarkMessages
import HallmarkPostgres

/// A directory holding the log as C2SP tlog-tiles (`checkpoint`, `tile/<L>/…`,
/// `tile/entries/…`), brought up to the latest checkpoint from the aggregator's tables, for
/// any static web server, object store or CDN to carry.
///
/// - Each file is written whole and renamed into place, the tiles first and the checkpoint
///   last, so a reader never sees a checkpoint whose tiles are missing.
/// - A tile never changes once written (a partial one is named by its width), so the tiles
///   of the checkpoint already there are not read again, and tiles present are kept.
/// - The checkpoint never goes back: a larger one already there is left alone, and another
///   log's is refused.
/// - Files are written on a queue of the directory's own, off the cooperative pool.
package final class TileDirectory: Sendable {
    /// The directory.
    package let path: String
    private let queue = DispatchQueue(label: "hallmark.aggregator.tiles")
    /// Tiles read from PostgreSQL before they are written out together.
    static let chunk = 64

    package init(path: String) { self.path = path }

    /// What a ``write(_:from:on:)`` did.
    package struct Written: Sendable, Equatable {
        /// The tree size the directory now serves.
        package var treeSize: UInt64 = 0
        /// Tiles and entry bundles written.
        package var written = 0
        /// Tiles found already present.
        package var kept = 0
        /// Whether the directory held a larger checkpoint, left as it was.
        package var ahead = false
    }

    /// Brings the directory up to the log's latest checkpoint.
    package func write(_ store: LogStore, on connection: PostgresConnection) async throws -> Written {
        guard let checkpoint = try await store.latestCheckpoint(on: connection) else {
            throw TileDirectoryError("the log is empty: there is no checkpoint yet")
        }
        return try await write(checkpoint, from: store, on: connection)
    }

    /// Brings the directory up to `checkpoint`, the log's latest, already read.
    package func write(
        _ checkpoint: SignedCheckpoint, from store: LogStore, on connection: PostgresConnection
    ) async throws -> Written {
        guard let note = checkpoint.note, let signed = try? SignedNote.parse(Array(note.utf8)),
            let text = try? CheckpointText(parsing: signed.text)
        else {
            throw TileDirectoryError("the latest checkpoint has no signed note (it predates HALLMARK_AGGREGATOR_LOG_ORIGIN)")
        }
        let path = self.path
        let present = try await io { try Self.presentCheckpoint(in: path) }
        if let present {
            guard present.origin == text.origin else {
                throw TileDirectoryError("\(path) holds the checkpoint of another log (\(present.origin))")
            }
            if present.treeSize > text.treeSize { return Written(treeSize: present.treeSize, ahead: true) }
        }
        var result = Written(treeSize: text.treeSize)
        let tiles = TileCoordinate.tiles(treeSize: text.treeSize, since: present?.treeSize ?? 0)
        for start in stride(from: 0, to: tiles.count, by: Self.chunk) {
            let chunk = tiles[start..<min(start + Self.chunk, tiles.count)]
            let missing = try await io { chunk.filter { !FileManager.default.fileExists(atPath: path + "/" + $0.description) } }
            result.kept += chunk.count - missing.count
            var files: [(String, Data)] = []
            for tile in missing {
                guard let bytes = try await store.tile(tile, on: connection) else {
                    throw TileDirectoryError("\(tile) is missing from the stored tree")
                }
                files.append((path + "/" + tile.description, bytes))
            }
            try await io { [files] in for (file, bytes) in files { try Self.replace(file, with: bytes) } }
            result.written += files.count
        }
        try await io { try Self.replace(path + "/checkpoint", with: Data(note.utf8)) }
        return result
    }

    /// The checkpoint the directory serves now, if any.
    static func presentCheckpoint(in path: String) throws -> CheckpointText? {
        guard let bytes = FileManager.default.contents(atPath: path + "/checkpoint") else { return nil }
        guard let note = try? SignedNote.parse(Array(bytes)), let text = try? CheckpointText(parsing: note.text) else {
            throw TileDirectoryError("\(path)/checkpoint is not a checkpoint")
        }
        return text
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

    /// Runs blocking file work on the directory's queue.
    private func io<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}

/// Why a tile directory could not be written.
package struct TileDirectoryError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
