import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// Hummingbird's HTTP/1.1 child channel with the ``CachedReadHandler`` and then the
/// ``SubmitHandler`` placed right after its connection state handler (Hummingbird's own hook
/// for handlers puts them before it, where the requests answered there would look like
/// silence to the idle timeout).
struct EdgeHTTP1Channel: HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let http1: HTTP1Channel
    let cachedReads: @Sendable () -> CachedReadHandler
    let submissions: @Sendable (any EventLoop) -> SubmitHandler

    var responder: Responder { http1.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let state = try pipeline.handler(type: HTTPConnectionStateHandler.self)
            let reads = cachedReads()
            try pipeline.addHandler(reads, position: .after(state))
            try pipeline.addHandler(submissions(channel.eventLoop), position: .after(reads))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}
