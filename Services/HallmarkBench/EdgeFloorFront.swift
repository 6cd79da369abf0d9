import EdgeCore
import Foundation
import HallmarkKafka
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// `hallmark bench edge`'s floor (#55): the least an HTTP face of the aggregator pays for a
/// submission that waits for its outcome, run as a process of its own so that its CPU is its own.
///
/// It is SwiftNIO's HTTP/1 server (the server under Hummingbird and under the edge's own submit
/// path), one producer with the services' settings, and the edge's ``AnswerRouter`` on the
/// answer topic. Each POST's body is published as it came, named and keyed by its
/// `Hallmark-Id` and `Hallmark-Key` headers, and answered 202 with the outcome once it comes
/// (504 when none came in time). It writes no receipt and parses, checks and limits nothing:
/// the bench sends it what the edge would have published. What the edge spends beyond it is
/// the edge's own work.
final class EdgeFloorFront: Service, Sendable {
    let producer: KafkaProducer
    let answers: AnswerRouter
    /// Where submissions go.
    let topic: String
    let port: Int
    /// How long a submission waits for its outcome (the edge's `HALLMARK_EDGE_ANSWER_WAIT_MS`).
    let wait: Duration
    let logger: Logger

    init(producer: KafkaProducer, answers: AnswerRouter, topic: String, port: Int, wait: Duration, logger: Logger) {
        self.producer = producer
        self.answers = answers
        self.topic = topic
        self.port = port
        self.wait = wait
        self.logger = logger
    }

    /// The headers that name a submission (its message id) and key it on the topic.
    static let idHeader = "Hallmark-Id", keyHeader = "Hallmark-Key"

    /// The log line the bench waits for: the port is bound and the answers' partitions are held.
    static let listening = "edge floor listening"

    func run() async throws {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 4096)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(front: self))
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        // Before its partitions are assigned the router would miss answers (it reads from the end).
        let deadline = ContinuousClock.now + .seconds(60)
        while !answers.isReady && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        logger.info("\(Self.listening)", metadata: ["port": "\(port)", "ready": "\(answers.isReady)"])
        try? await gracefulShutdown()
        try await channel.close()
    }

    /// Publishes `value` and waits for its outcome in a task of its own, then hands `answered`
    /// the answer's bytes, or nil.
    func accept(id: String, key: [UInt8]?, value: [UInt8], answered: @escaping @Sendable ([UInt8]?) -> Void) {
        Task {
            answered(
                try? await answers.request(id, timeout: wait) {
                    try await producer.send(topic: topic, key: key, value: value)
                })
        }
    }
}

extension EdgeFloorFront {
    /// One connection's requests: the body gathered on the loop, one task to publish and wait,
    /// the answer written back on the loop (as the edge's `SubmitHandler` does). Pipelined
    /// requests wait their turn in NIO's `HTTPServerPipelineHandler`.
    final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        private let front: EdgeFloorFront
        private var head: HTTPRequestHead?
        private var body: ByteBuffer?

        init(front: EdgeFloorFront) { self.front = front }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = nil
            case .body(var part):
                if body == nil { body = part } else { body?.writeBuffer(&part) }
            case .end:
                guard let head else { return }
                self.head = nil
                let value = body.map { Array(buffer: $0) } ?? []
                body = nil
                let id = head.headers.first(name: EdgeFloorFront.idHeader)?.lowercased() ?? ""
                let key = head.headers.first(name: EdgeFloorFront.keyHeader).map { Array($0.utf8) }
                let (loop, version, keepAlive) = (context.eventLoop, head.version, head.isKeepAlive)
                let bound = NIOLoopBound(context, eventLoop: loop)
                front.accept(id: id, key: key, value: value) { answer in
                    loop.execute { Self.respond(answer, version: version, keepAlive: keepAlive, context: bound.value) }
                }
            }
        }

        private static func respond(
            _ answer: [UInt8]?, version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext
        ) {
            let body = answer ?? Array(#"{"error":"unavailable"}"#.utf8)
            var headers = HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", "\(body.count)")])
            if !keepAlive { headers.add(name: "Connection", value: "close") }
            let status: HTTPResponseStatus = answer == nil ? .gatewayTimeout : .accepted
            let response = HTTPResponseHead(version: version, status: status, headers: headers)
            context.write(NIOAny(HTTPServerResponsePart.head(response)), promise: nil)
            context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
            let done: EventLoopPromise<Void>? = keepAlive ? nil : context.eventLoop.makePromise()
            context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: done)
            done?.futureResult.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
        }
    }
}
