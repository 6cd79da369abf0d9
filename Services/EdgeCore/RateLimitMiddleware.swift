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
        if let header, let value = request.headers[header],
            let last = value.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        {
            return last
        }
        return context.remoteAddress?.ipAddress ?? "unknown"
    }
}
