import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers what HTTP/1.1 framing cannot carry to the router with ``EdgeError``'s JSON (DESIGN
/// BM-EDGE: every refusal has that body; framing errors are 400 or 431, never 503, since a
/// camera retries a 503 for ever):
/// - a request the parser refuses (a bad `Content-Length`, both it and `Transfer-Encoding`,
///   bad chunking, an unknown method, a malformed request line): 400 `malformed`;
/// - headers past the decoder's limits (one too large, too many, too much in all): 431
///   `headers_too_large`;
/// - `CONNECT`: 405 `method_not_allowed` (the edge is no proxy, and NIO's encoder drops the
///   body of any response to a `CONNECT`, so the router's answer would arrive empty).
///
/// The answer is written as bytes at the pipeline's head, past the HTTP encoder, whose state
/// the broken request has already spoiled, and only when no response is under way (one cannot
/// be cut into); the connection then closes. The parser's error still goes on, so a body being
/// read fails instead of ending short, and whatever the rest of the pipeline writes after the
/// answer is dropped.
final class EdgeFramingHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// A response head has been written and its end not yet.
    private var responding = false
    /// This handler has answered; the connection is closing.
    private var answered = false

    init() {}

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        if case .head(let request) = unwrapInboundIn(data), request.method == .connect {
            return refuse(context: context, EdgeError(.methodNotAllowed, "the edge does not open tunnels"))
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let parser = error as? HTTPParserError, !answered {
            refuse(context: context, Self.refusal(parser))
        }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !answered else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.kind != .informational: responding = true
        case .end: responding = false
        default: break
        }
        context.write(data, promise: promise)
    }

    /// What a parser error is answered with. Never the request's bytes.
    static func refusal(_ error: HTTPParserError) -> EdgeError {
        switch error {
        case .headerOverflow:
            EdgeError(.headersTooLarge, "the request's headers are too large or too many")
        case .invalidContentLength, .unexpectedContentLength:
            EdgeError(.malformed, "Content-Length is invalid, repeated with another value, or sent with Transfer-Encoding")
        case .invalidChunkSize, .invalidConstant:
            EdgeError(.malformed, "the body's chunked encoding cannot be read")
        case .invalidMethod:
            EdgeError(.malformed, "the request's method is not one the edge knows")
        case .invalidURL, .invalidPath, .invalidQueryString, .invalidFragment, .invalidHost, .invalidPort:
            EdgeError(.malformed, "the request's target cannot be read")
        case .invalidVersion:
            EdgeError(.malformed, "the request is not HTTP/1.x")
        default:
            EdgeError(.malformed, "the request's HTTP framing cannot be read")
        }
    }

    /// Writes `error` as a whole response at the head of the pipeline, then closes.
    private func refuse(context: ChannelHandlerContext, _ error: EdgeError) {
        let responding = self.responding
        answered = true
        // Written from the response encoder's place, so only what lies before it (the socket)
        // sees the bytes; the encoder is the first handler NIO's HTTP server pipeline adds.
        guard !responding,
            let head = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self)
        else {
            context.close(promise: nil)
            return
        }
        // Closed once written: the answer is small, and nothing after it would be read.
        let channel = context.channel
        head.writeAndFlush(NIOAny(Self.response(error))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// The bytes of `error`'s response, closing the connection.
    static func response(_ error: EdgeError) -> ByteBuffer {
        let body = error.json
        let status = error.code.status
        var buffer = ByteBuffer()
        buffer.writeString(
            "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.count)\r\nConnection: close\r\nServer: \(EdgeServer.serverName)\r\n"
                + "Date: \(HTTPDate.now)\r\n\r\n")
        buffer.writeBytes(body)
        return buffer
    }
}
