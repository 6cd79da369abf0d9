import HTTPTypes
import HallmarkCore
import NIOCore
import NIOHTTPTypes

/// Answers a `GET` of a cached verification or proof on the connection's event loop, with the
/// bytes and headers the router would write, but without the router's task hop per request: a
/// photo checked by many is the read load a public log carries, and a cached answer needs
/// nothing asynchronous. Anything else, a cache miss included, goes on to the router.
///
/// It sits after Hummingbird's connection state handler, so idle timeouts and graceful
/// shutdown count these requests too. A response written here never overtakes one the router
/// still owes on the connection (HTTP/1.1 pipelining): while one is owed, every request goes on.
final class CachedReadHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let verifications: Verifications
    private let serverName: String
    /// Requests passed on whose response has not ended yet.
    private var owed = 0
    /// The answer to the request being read, written once its end arrives.
    private var answering: (head: HTTPResponse, body: ByteBuffer)?

    init(verifications: Verifications, serverName: String) {
        self.verifications = verifications
        self.serverName = serverName
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if owed == 0, let answer = answer(request) {
                answering = answer
                return
            }
            owed += 1
            context.fireChannelRead(data)
        case .body:
            // A GET answered here announced no body; anything else goes on.
            if answering == nil { context.fireChannelRead(data) }
        case .end:
            guard let (head, body) = answering else { return context.fireChannelRead(data) }
            answering = nil
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(body)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), owed > 0 { owed -= 1 }
        context.write(data, promise: promise)
    }

    /// The cached answer to `request` with its headers as the router writes them, or nil when
    /// the router must answer it.
    private func answer(_ request: HTTPRequest) -> (head: HTTPResponse, body: ByteBuffer)? {
        guard request.method == .get, let path = request.path,
            request.headerFields[.contentLength] == nil, request.headerFields[.transferEncoding] == nil,
            request.headerFields[.connection].map({ $0.lowercased() == "keep-alive" }) ?? true,
            let read = EdgeServer.Read.allCases.first(where: { path.hasPrefix($0.prefix) }),
            let hash = EdgeHandlers.imageHash(path.dropFirst(read.prefix.count)),
            let cached = verifications.cached(hash), let (headers, body) = read.response(cached)
        else { return nil }
        var fields = headers
        fields[.contentLength] = String(body.readableBytes)
        fields[.date] = HTTPDate.now
        fields[.server] = serverName
        return (HTTPResponse(status: .ok, headerFields: fields), body)
    }
}
