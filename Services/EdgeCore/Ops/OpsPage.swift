import Foundation
import HTTPTypes
import HallmarkCore
import HallmarkCrypto
import Hummingbird
import NIOCore

/// The edge's operations dashboard, on only when `HALLMARK_EDGE_OPS_TOKEN(_FILE)` is set:
/// - `GET /ops`, `/ops/ops.js`, `/ops/ops.css`: the page, its script and its style
///   (``OpsAssets``), which hold no data and need no token;
/// - `GET /ops/data`: what the charts draw (``OpsBoard/Data``), only with
///   `Authorization: Bearer <token>` (401 otherwise).
///
/// The page takes the token from its URL's fragment (`/ops#token=…`, which browsers never send)
/// or a form, keeps it in the tab's session storage and sends it with each request. It is
/// read-only: no route changes anything. A strict Content-Security-Policy allows only the
/// page's own script, style and data requests.
package struct OpsPage: Sendable {
    let feed: OpsFeed
    /// The token's digest: requests are compared digest to digest, so the time a comparison
    /// takes says nothing about the token.
    private let tokenDigest: Data

    package init(token: String, feed: OpsFeed) {
        self.feed = feed
        tokenDigest = SHA256Hash.digest(Data(token.utf8))
    }

    /// Whether `request` carries the token.
    func isAuthorized(_ request: Request) -> Bool {
        guard let token = request.headers[.authorization].flatMap(Self.bearerToken) else { return false }
        return SHA256Hash.digest(Data(token.utf8)) == tokenDigest
    }

    /// The token of `Bearer <token>`: the scheme in any case and one or more spaces after it
    /// (RFC 9110 §11.1, RFC 6750 §2.1); nil for another scheme or no token.
    static func bearerToken(_ credentials: String) -> Substring? {
        let bytes = credentials.utf8
        guard let space = bytes.firstIndex(of: UInt8(ascii: " ")),
            credentials[..<space].lowercased() == "bearer",
            let start = bytes[space...].firstIndex(where: { $0 != UInt8(ascii: " ") })
        else { return nil }
        return credentials[start...]
    }

    /// Adds the page's routes.
    func register(on router: Router<EdgeRequestContext>) {
        let assets: [(String, String, String)] = [
            ("ops", "text/html; charset=utf-8", OpsAssets.html),
            ("ops/ops.js", "text/javascript; charset=utf-8", OpsAssets.script),
            ("ops/ops.css", "text/css; charset=utf-8", OpsAssets.style),
        ]
        for (path, type, text) in assets {
            let body = ByteBuffer(string: text)
            router.get(RouterPath(path)) { _, _ -> Response in
                Response(status: .ok, headers: Self.headers(type), body: .init(byteBuffer: body))
            }
        }
        router.get("ops/data") { request, _ -> Response in
            guard isAuthorized(request) else {
                var response = EdgeServer.json(.unauthorized, EdgeError(.unauthorized, "a valid bearer token is required").json)
                response.headers[.wwwAuthenticate] = #"Bearer realm="hallmark-ops""#
                return response
            }
            var headers = Self.headers("application/json")
            headers[.cacheControl] = "no-store"
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try JSONCoding.encode(feed.data()))))
        }
    }

    /// The security headers of every `/ops` response (its charts are drawn with `data:` images).
    static func headers(_ contentType: String) -> HTTPFields { PageHeaders.of(contentType, dataImages: true) }
}
