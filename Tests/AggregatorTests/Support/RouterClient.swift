import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Synchronization

/// An application's routes answered in process, with no server and no socket: a request goes
/// straight to the router's responder, as Hummingbird's own router test client sends it. Ours,
/// because the `HummingbirdTesting` module also brings AsyncHTTPClient, HTTP/2 and a second
/// BoringSSL into the test build: three CPU-minutes of every CI run, for these few lines.
struct RouterClient<Responder: HTTPResponder>: Sendable
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    let responder: Responder
    let logger: Logger

    init<App: ApplicationProtocol>(_ app: App) async throws where App.Responder == Responder {
        responder = try await app.responder
        logger = app.logger
    }

    /// The route's answer to one request: its status and body. A thrown HTTP error answers its
    /// status (with no body); any other error is a 500.
    func execute(
        _ path: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: [UInt8] = []
    ) async throws -> (status: Int, body: [UInt8]) {
        var headers = headers
        if method == .post || !body.isEmpty { headers[.contentLength] = String(body.count) }
        let request = Request(
            head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: path, headerFields: headers),
            body: RequestBody(buffer: ByteBuffer(bytes: body)))
        let context = Responder.Context(source: .init(channel: NIOAsyncTestingChannel(), logger: logger))
        let response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            response = Response(status: error.status)
        } catch {
            response = Response(status: .internalServerError)
        }
        let collected = Collected()
        try await response.body.write(collected)
        return (Int(response.status.code), collected.bytes)
    }

    /// Collects a response's body.
    struct Collected: ResponseBodyWriter {
        final class Bytes: Sendable { let value = Mutex<[UInt8]>([]) }
        let box = Bytes()
        var bytes: [UInt8] { box.value.withLock { $0 } }
        func write(_ buffer: ByteBuffer) async throws { box.value.withLock { $0 += buffer.readableBytesView } }
        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
