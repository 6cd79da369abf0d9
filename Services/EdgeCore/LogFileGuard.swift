import HTTPTypes
import HallmarkCrypto
import Hummingbird

/// Guards the log's files under ``EdgeServer/logPrefix`` (DESIGN BM-EDGE):
/// - a path there is the checkpoint or a tile in C2SP tlog-tiles' grammar, byte for byte, or
///   it is 400 before a file is looked up: a NUL, a percent escape, `..` or a stray byte never
///   reach the file system (`/log/checkpoint%00` was served as the checkpoint);
/// - `Range` is ignored, as RFC 9110 §14.2 lets a server do: the files are small (a tile is at
///   most 8 KiB, a checkpoint under 1 KiB), so every answer is the whole file with 200 and none
///   advertises ranges (the file server's own range arithmetic answered `bytes=999999999-`
///   with a negative length).
struct LogFileGuard<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        let path = request.uri.path
        let prefix = EdgeServer.logPrefix + "/"
        guard path.hasPrefix(prefix) else { return try await next(request, context) }
        guard Self.isLogFile(path.dropFirst(prefix.count)) else {
            throw EdgeError(.malformed, "not a file of the log: its checkpoint or a tile (C2SP tlog-tiles)")
        }
        var head = request.head
        head.headerFields[.range] = nil
        head.headerFields[.ifRange] = nil
        var response = try await next(Request(head: head, body: request.body), context)
        response.headers[.acceptRanges] = nil
        response.headers[.contentRange] = nil
        return response
    }

    /// Whether `name` (the path after the prefix) names the checkpoint or a tile.
    static func isLogFile(_ name: Substring) -> Bool {
        name == "checkpoint" || TileCoordinate(path: String(name)) != nil
    }
}
