import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Applies the per-client ``RateLimiter`` to submissions (`POST`): 429 with `Retry-After`.
/// Reads are not limited here: verification answers are cached, and a CDN in front carries
/// them (docs/edge.md). The client is the connection's peer, or behind a trusted proxy the last
/// address of the header it sets (`HALLMARK_EDGE_CLIENT_ADDRESS_HEADER`).
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = EdgeRequestContext

    let limiter: RateLimiter
    let header: HTTPField.Name?

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        guard request.method == .post, let wait = limiter.take(client(request, context)) else {
            return try await next(request, context)
        }
        let error = EdgeError(.rateLimited, "too many submissions from this client; retry later")
        var response = EdgeServer.json(error.code.status, error.json)
        response.headers[.retryAfter] = String(wait)
        return response
    }

    private func client(_ request: Request, _ context: Context) -> String {
        Self.client(forwarded: header.flatMap { request.headers[$0] }, peer: context.remoteAddress)
    }

    /// The client a request counts against: the last address of the trusted proxy's header
    /// when it carries one, else the connection's peer.
    static func client(forwarded value: String?, peer: SocketAddress?) -> String {
        if let value, var address = value.split(separator: ",").last {
            // HTTP's optional white space (spaces, tabs) around the address, trimmed without
            // Foundation's `CharacterSet` (a fiftieth of the edge's CPU per request).
            while let c = address.first, c == " " || c == "\t" { address.removeFirst() }
            while let c = address.last, c == " " || c == "\t" { address.removeLast() }
            if !address.isEmpty { return String(address) }
        }
        return peer?.ipAddress ?? "unknown"
    }
}
