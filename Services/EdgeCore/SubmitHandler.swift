import HTTPTypes
import HallmarkCore
import HallmarkMessages
import Logging
import NIOCore
import NIOHTTPTypes

/// Answers the cameras' submissions, `POST /api/v1/submit`, `/api/v1/submit-legacy` and
/// `/api/v1/submit-cert`, from
/// the connection's event loop, with the answers the router gives them (``EdgeHandlers``'s
/// `body(of:)` and `submit(_:)` behind the rate limit): the body is gathered here, the
/// receipt opened, the bundle published and its outcome awaited each from the callback of the
/// step before (``EdgeHandlers/accept(_:deadlines:logger:answer:)``, no task), and the loop
/// keeps every deadline and writes the answer. The router's path costs the stream of request
/// parts, a task per deadline and the response writer's hops, about as much as the
/// submission's own work.
///
/// - The rate limit is checked first: 429 with `Retry-After` at once, the body then read and
///   dropped, the connection kept.
/// - A body past the limit is 413, at the head when `Content-Length` says so; one that has not
///   arrived within the read timeout is 408. Both close the connection, whose rest is unread.
/// - Requests stay in order (HTTP/1.1 pipelining): while a response is owed, by this handler
///   or by the router, what follows is held (reading stops) or goes on to the router.
/// - A submission with `Expect`, a `Connection` other than keep-alive, or a query goes on to
///   the router, which answers it as before.
final class SubmitHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// What the connection's current request is to this handler.
    private enum State {
        /// Between requests.
        case idle
        /// Passed on to the router, up to its end.
        case passing
        /// A submission's body being read (``reading``).
        case reading
        /// A submission read, whose answer comes from the backend.
        case answering(Int)
        /// Closing: nothing more is read or answered.
        case closing
    }

    /// The submission being read.
    private struct Reading {
        let number: Int
        /// Which submit path it came to.
        let kind: CameraBundle.Kind
        var body: ByteBuffer
        var size = 0
        /// Answered already (the rate limit): the rest is read and dropped.
        var dropping: Bool
    }

    private let edge: EdgeHandlers
    private let limiter: RateLimiter
    private let clientHeader: HTTPField.Name?
    private let logger: Logger
    private let deadlines: LoopDeadlines
    private var state = State.idle
    private var reading: Reading?
    /// Submissions begun on this connection, which number them.
    private var begun = 0
    /// Requests passed on to the router whose response has not ended yet.
    private var owed = 0
    /// Parts read while an answer is awaited, handled after it.
    private var held = CircularBuffer<HTTPRequestPart>()
    /// A read asked for while parts were held or an answer awaited.
    private var readHeld = false
    private var context: ChannelHandlerContext?

    /// A handler for a connection of the loop whose `deadlines` are given.
    init(
        edge: EdgeHandlers, limiter: RateLimiter, clientHeader: HTTPField.Name?, deadlines: LoopDeadlines, logger: Logger
    ) {
        self.edge = edge
        self.deadlines = deadlines
        self.limiter = limiter
        self.clientHeader = clientHeader
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .answering = state { return held.append(part) }
        if !held.isEmpty { return held.append(part) }
        handle(part, context: context)
    }

    func read(context: ChannelHandlerContext) {
        if case .answering = state { return readHeld = true }
        if !held.isEmpty { return readHeld = true }
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), owed > 0 { owed -= 1 }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A framing error: EdgeFramingHandler answers it and the connection closes.
        if case .passing = state {} else { stop() }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    private func stop() {
        reading = nil
        state = .closing
        held.removeAll()
    }

    private func handle(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        switch (state, part) {
        case (.idle, .head(let request)):
            if owed == 0, let kind = Self.submission(request) { return begin(request, kind: kind, context: context) }
            owed += 1
            state = .passing
            context.fireChannelRead(wrapInboundOut(part))
        case (.passing, _), (.idle, _):
            if case .end = part { state = .idle }
            context.fireChannelRead(wrapInboundOut(part))
        case (.reading, .body(let buffer)):
            guard var current = reading else { return }
            reading = nil
            current.size += buffer.readableBytes
            if current.size > edge.configuration.maxBodyBytes {
                guard !current.dropping else { return close(context) }
                return refuse(EdgeError(.tooLarge, "the body is larger than \(edge.configuration.maxBodyBytes) bytes"), context)
            }
            if !current.dropping { current.body.writeImmutableBuffer(buffer) }
            reading = current
        case (.reading, .end):
            guard let current = reading else { return }
            reading = nil
            guard !current.dropping else { return state = .idle }
            state = .answering(current.number)
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            let (loop, number) = (context.eventLoop, current.number)
            edge.accept(Array(buffer: current.body), kind: current.kind, deadlines: deadlines, logger: logger) { result in
                if loop.inEventLoop { return bound.value.answered(number, result) }
                loop.execute { bound.value.answered(number, result) }
            }
        case (.reading, .head), (.answering, _), (.closing, _):
            break
        }
    }

    /// What the router would take `request` for, when it is a submission that this handler
    /// answers alike.
    private static func submission(_ request: HTTPRequest) -> CameraBundle.Kind? {
        guard request.method == .post, request.headerFields[.expect] == nil,
            request.headerFields[.connection].map({ $0.lowercased() == "keep-alive" }) ?? true
        else { return nil }
        switch request.path {
        case "/api/v1/submit", "/api/v1/submit-legacy": return .token
        case "/api/v1/submit-cert": return .certificate
        default: return nil
        }
    }

    private func begin(_ request: HTTPRequest, kind: CameraBundle.Kind, context: ChannelHandlerContext) {
        begun += 1
        let number = begun
        let limit = edge.configuration.maxBodyBytes
        let client = RateLimitMiddleware.client(
            forwarded: clientHeader.flatMap { request.headerFields[$0] }, peer: context.channel.remoteAddress)
        let wait = limiter.take(client)
        let length = request.headerFields[.contentLength].flatMap { Int($0) }
        if wait == nil, let length, length > limit {
            return refuse(EdgeError(.tooLarge, "the body is larger than \(limit) bytes"), context)
        }
        // Weak: the loop's deadlines outlive the connection, and a handler gone needs none.
        deadlines.after(edge.configuration.readTimeout) { [weak self] in self?.timedOut(number) }
        let capacity = length.map { min($0, limit) } ?? 0
        reading = Reading(
            number: number, kind: kind, body: context.channel.allocator.buffer(capacity: wait == nil ? capacity : 0),
            dropping: wait != nil)
        state = .reading
        if let wait {
            let error = EdgeError(.rateLimited, "too many submissions from this client; retry later")
            respond(error.code.status, error.json, extra: [.retryAfter: String(wait)], context: context)
        }
    }

    /// The read timeout of submission `number`.
    private func timedOut(_ number: Int) {
        guard case .reading = state, let current = reading, current.number == number, let context else { return }
        reading = nil
        if current.dropping { return close(context) }
        refuse(EdgeError(.requestTimeout, "the body did not arrive in time"), context)
    }

    /// The backend's answer to submission `number`.
    private func answered(_ number: Int, _ result: Result<[UInt8], EdgeError>) {
        guard case .answering(number) = state, let context else { return }
        state = .idle
        switch result {
        case .success(let body): respond(.accepted, body, context: context)
        case .failure(let error): respond(error.code.status, error.json, context: context)
        }
        // What arrived meanwhile, in order, until another answer is awaited.
        var replayed = false
        while let part = held.first, !isAwaiting {
            held.removeFirst()
            handle(part, context: context)
            replayed = true
        }
        if replayed { context.fireChannelReadComplete() }
        if readHeld, held.isEmpty, !isAwaiting {
            readHeld = false
            context.read()
        }
    }

    /// Whether an answer is awaited, or the connection closes: nothing is handled meanwhile.
    private var isAwaiting: Bool {
        switch state {
        case .answering, .closing: true
        case .idle, .passing, .reading: false
        }
    }

    /// Answers `error` and closes the connection, whose unread rest cannot be framed.
    private func refuse(_ error: EdgeError, _ context: ChannelHandlerContext) {
        let written = respond(error.code.status, error.json, extra: [.connection: "close"], context: context)
        close(context, after: written)
    }

    /// Stops answering and closes the connection: its output once `written` has gone out, so
    /// the client reads the answer (closing with the client's bytes unread would reset the
    /// connection under it), and the whole of it a little later whatever the client does.
    private func close(_ context: ChannelHandlerContext, after written: EventLoopFuture<Void>? = nil) {
        stop()
        let channel = context.channel
        guard let written else { return channel.close(promise: nil) }
        written.whenComplete { _ in channel.close(mode: .output, promise: nil) }
        context.eventLoop.scheduleTask(in: Self.linger) { channel.close(promise: nil) }
    }

    /// How long a connection refused with its body unread may still send, to be dropped.
    static let linger = TimeAmount.seconds(2)

    /// Writes a JSON response with the headers the router's responses carry.
    @discardableResult
    private func respond(
        _ status: HTTPResponse.Status, _ body: [UInt8], extra: HTTPFields = [:], context: ChannelHandlerContext
    ) -> EventLoopFuture<Void> {
        var fields = extra
        fields[.contentType] = "application/json"
        fields[.contentLength] = String(body.count)
        fields[.date] = HTTPDate.now
        fields[.server] = EdgeServer.serverName
        context.write(wrapOutboundOut(.head(HTTPResponse(status: status, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: body))), promise: nil)
        return context.writeAndFlush(wrapOutboundOut(.end(nil)))
    }
}
