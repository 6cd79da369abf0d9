import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkRuntime
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// The edge's HTTP interface (DESIGN BM-EDGE), a Hummingbird application and so a
/// swift-service-lifecycle `Service`:
/// - `POST /api/v1/submit-legacy` (the reference Raspberry Pi's flat bundle),
///   `POST /api/v1/submit` (`CameraSubmission`, the mobile app's bundle) and
///   `POST /api/v1/submit-cert` (a certificate bundle, DESIGN BM-CERT): 202 with the receipt;
/// - `GET /api/v1/submission/{receipt_id}`: the receipt's outcome, from any replica;
/// - `GET /api/v1/verify/{image_hash}`, `GET /api/v1/proof/{image_hash}`: the log's answer, as
///   JSON and as a C2SP tlog-proof (``Verifications``);
/// - `POST /api/v1/modifications`, `GET /api/v1/provenance/{image_hash}` and
///   `GET /api/v1/modifications/{image_hash}`: editors' claims and provenance;
/// - `GET /api/v1/blockchain/verify/{image_hash}` and `GET /api/v1/blockchain/status`: the
///   reference node's API, which the reference verifier web app reads (DESIGN BM-PROVENANCE);
/// - `GET /health` (the process serves) and `GET /ready` (it can publish and hear answers);
/// - `GET /ops`, the operations dashboard, when configured (``OpsPage``);
/// - `GET /verify`, the verifier page (``VerifierPage``).
/// Every error is ``EdgeError``'s JSON; nothing answers 500 or shows internals.
package enum EdgeServer {
    /// The application serving `edge` on `host`:`port` (port 0: any free port, which
    /// `onRunning` receives).
    package static func application(
        _ edge: EdgeHandlers, host: String, port: Int, ops: OpsPage? = nil,
        verifier: VerifierPage = VerifierPage(policy: nil), logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: EdgeRequestContext.self)
        router.add(middleware: EdgeErrorMiddleware(logger: logger))
        // One limit per client, whichever path answers its submissions.
        let limiter = RateLimiter(limit: edge.configuration.rateLimit, window: edge.configuration.rateWindow)
        let clientHeader = edge.configuration.clientAddressHeader.flatMap { HTTPField.Name($0) }
        let deadlines = LoopDeadlines.Registry()
        router.add(middleware: RateLimitMiddleware(limiter: limiter, header: clientHeader))
        if let tiles = edge.configuration.tilesDirectory {
            // The log's checkpoint and tiles (C2SP tlog-tiles), files the aggregator writes.
            router.add(middleware: LogFileGuard())
            router.add(middleware: TileCacheMiddleware())
            router.add(
                middleware: FileMiddleware<EdgeRequestContext, LocalFileSystem>(tiles, urlBasePath: logPrefix, logger: logger))
        }
        // SubmitHandler answers most before the router, alike.
        func submit(_ kind: CameraBundle.Kind) -> @Sendable (Request, EdgeRequestContext) async throws -> Response {
            { request, _ in
                let body = try await edge.body(of: request)
                return json(.accepted, try await edge.submit(body, kind: kind))
            }
        }
        router.post("api/v1/submit-legacy", use: submit(.token))
        router.post("api/v1/submit", use: submit(.token))
        router.post("api/v1/submit-cert", use: submit(.certificate))
        // A camera that GETs its submit path is told the method, not that the path is unknown.
        for path in ["api/v1/submit-legacy", "api/v1/submit", "api/v1/submit-cert"] {
            router.get(RouterPath(path)) { _, _ -> Response in
                throw EdgeError(.methodNotAllowed, "submissions are POSTed")
            }
        }
        router.get("api/v1/submission/:receipt") { _, context -> Response in
            json(.ok, try await edge.submission(try context.parameters.require("receipt")))
        }
        // CachedReadHandler answers the cached ones before the router, by the same Read.
        for read in Read.allCases {
            router.get(RouterPath(read.prefix + ":hash")) { _, context -> Response in
                let answer = try await edge.verify(try context.parameters.require("hash"))
                guard let (headers, body) = read.response(answer) else {
                    throw EdgeError(.notFound, "the image is not in the log", field: "image_hash")
                }
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
            }
        }
        // Edits as claims, and provenance (DESIGN BM-PROVENANCE).
        router.post("api/v1/modifications") { request, _ -> Response in
            json(.accepted, try await edge.claim(try await edge.body(of: request)))
        }
        router.get("api/v1/modifications/:hash") { _, context -> Response in
            json(.ok, try await edge.modifications(try context.parameters.require("hash")))
        }
        router.get("api/v1/provenance/:hash") { _, context -> Response in
            json(.ok, try await edge.provenance(try context.parameters.require("hash")))
        }
        router.get("api/v1/blockchain/status") { _, _ -> Response in
            json(.ok, Verifications.status(try await edge.head()))
        }
        ops?.register(on: router)
        verifier.register(on: router)
        router.get("health") { _, _ -> Response in json(.ok, Array(#"{"status":"healthy"}"#.utf8)) }
        router.get("ready") { _, _ -> Response in
            guard edge.isReady else { throw EdgeError(.unavailable, "not yet reading the answer topics") }
            return json(.ok, Array(#"{"status":"ready"}"#.utf8))
        }
        return Application(
            router: router,
            // A connection silent this long is closed; longer than the read timeout, so a body
            // that trickles is answered 408 first.
            server: HTTPServerBuilder { responder in
                EdgeHTTP1Channel(
                    http1: HTTP1Channel(
                        responder: responder,
                        configuration: .init(
                            // Framing errors and CONNECT answered with the JSON error.
                            additionalChannelHandlers: [EdgeFramingHandler()],
                            idleTimeout: .nanoseconds((edge.configuration.readTimeout + .seconds(5)).nanoseconds))),
                    cachedReads: { CachedReadHandler(verifications: edge.verifications, serverName: serverName) },
                    submissions: { loop in
                        SubmitHandler(
                            edge: edge, limiter: limiter, clientHeader: clientHeader, deadlines: deadlines.on(loop),
                            logger: logger)
                    })
            },
            configuration: .init(address: .hostname(host, port: port), serverName: serverName),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) }, logger: logger)
    }

    /// The `Server` header of every response.
    static let serverName = "hallmark-edge"

    /// Where the log's checkpoint and tiles are served.
    static let logPrefix = "/log"

    /// Seconds a CDN may keep a verification answer: it holds until the next checkpoint, which
    /// comes within a batch's linger under load.
    static let verifyMaxAge = 2

    /// The reads of a verification answer: its JSON, its C2SP proof file and the reference
    /// node's answer.
    enum Read: CaseIterable {
        case verify, proof, node

        /// Where it is read: this, then the image hash.
        var prefix: String {
            switch self {
            case .verify: "/api/v1/verify/"
            case .proof: "/api/v1/proof/"
            case .node: "/api/v1/blockchain/verify/"
            }
        }

        /// Its headers but those Hummingbird adds (`Date`, `Server`, `Content-Length`).
        /// A verification is good until the next checkpoint, so a CDN may keep it for a few
        /// seconds; a proof against a signed checkpoint stays valid for ever.
        private var headers: HTTPFields {
            switch self {
            case .verify, .node: EdgeServer.verifyHeaders
            case .proof: EdgeServer.proofHeaders
            }
        }

        /// What `answer` is answered with: the headers above with its ETag, and the body; nil
        /// for a proof of an image that is not in the log.
        func response(_ answer: Verifications.Answer) -> (HTTPFields, ByteBuffer)? {
            let body: ByteBuffer? =
                switch self {
                case .verify: answer.json
                case .proof: answer.proof
                case .node: answer.node
                }
            guard let body else { return nil }
            var fields = headers
            fields[.eTag] = answer.eTag
            return (fields, body)
        }
    }

    private static let verifyHeaders: HTTPFields = [
        .contentType: "application/json", .cacheControl: "public, max-age=\(verifyMaxAge)",
    ]

    private static let proofHeaders: HTTPFields = [
        .contentType: "text/plain; charset=utf-8", .cacheControl: "public, max-age=31536000, immutable",
    ]

    /// A JSON response.
    static func json(_ status: HTTPResponse.Status, _ body: [UInt8]) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// Turns every error into ``EdgeError``'s JSON: Hummingbird's own (404 for an unknown route,
/// 405, 413 for a body past its limit) by their status, anything else as 503, logged without
/// its details reaching the client.
struct EdgeErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as EdgeError {
            return EdgeServer.json(error.code.status, error.json)
        } catch let error as HTTPParserError {
            // A body whose framing broke while it was read (EdgeFramingHandler has answered it;
            // this keeps the router from calling it unavailable).
            let mapped = EdgeFramingHandler.refusal(error)
            return EdgeServer.json(mapped.code.status, mapped.json)
        } catch let error as HTTPError {
            let mapped: EdgeError =
                switch error.status {
                case .notFound: EdgeError(.notFound, "no such resource")
                case .methodNotAllowed: EdgeError(.methodNotAllowed, "this resource does not take that method")
                case .contentTooLarge: EdgeError(.tooLarge, "the body is larger than a bundle can be")
                case .badRequest: EdgeError(.malformed, "the request cannot be read")
                case let status where status.kind == .clientError: EdgeError(.malformed, "the request cannot be served")
                default: EdgeError(.unavailable, "the request cannot be served now")
                }
            return EdgeServer.json(mapped.code.status, mapped.json)
        } catch {
            logger.warning(
                "request failed", metadata: ["path": "\(request.uri.path)", "error": "\(ErrorPolicy.safeDescription(error))"])
            let mapped = EdgeError(.unavailable, "the request cannot be served now")
            return EdgeServer.json(mapped.code.status, mapped.json)
        }
    }
}

/// Cache headers for the log's files (C2SP tlog-tiles): full tiles and entry bundles never
/// change, so a year; the checkpoint and partial tiles (`.p/`) change as the log grows, so a
/// second. ETags are FileMiddleware's.
struct TileCacheMiddleware<Context: RequestContext>: RouterMiddleware {
    static var prefix: String { EdgeServer.logPrefix }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        var response = try await next(request, context)
        let path = request.uri.path
        guard path.hasPrefix(Self.prefix + "/"), response.status == .ok || response.status == .notModified else {
            return response
        }
        let immutable = path.hasPrefix(Self.prefix + "/tile/") && !path.contains(".p/")
        response.headers[.cacheControl] = immutable ? "public, max-age=31536000, immutable" : "public, max-age=1, no-transform"
        if path.hasSuffix("/checkpoint") { response.headers[.contentType] = "text/plain; charset=utf-8" }
        return response
    }
}
