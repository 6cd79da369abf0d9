import Foundation
import HallmarkCrypto
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The witness's HTTP interface (C2SP tlog-witness), a Hummingbird application and so a
/// swift-service-lifecycle `Service`:
/// - `POST /add-checkpoint`: the checkpoint with its consistency proof; 200 with the
///   cosignature line, or 400, 403, 404, 409 (`text/x.tlog.size`) or 422;
/// - `GET /<hex SHA-256 of the origin>/checkpoint`: the latest checkpoint cosigned for that
///   log, with the log's signature and the witness's cosignature (404 when there is none).
package enum WitnessServer {
    /// The application serving `witness` on `host`:`port` (port 0: any free port, which
    /// `onRunning` receives).
    package static func application(
        _ witness: Witness, host: String, port: Int, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        router.post("add-checkpoint") { request, _ -> Response in
            var request = request
            guard let body = try? await request.collectBody(upTo: AddCheckpointRequest.maxSize) else {
                return text(.badRequest, "the request is larger than a checkpoint and its proof\n")
            }
            let answer = await witness.add(Array(buffer: body))
            var headers = HTTPFields()
            headers[.contentType] = answer.contentType
            return Response(
                status: HTTPResponse.Status(code: answer.status), headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: answer.body)))
        }
        router.get(":origin/checkpoint") { _, context -> Response in
            let hash = try context.parameters.require("origin")
            guard hash.count == 64, let checkpoint = await witness.checkpoint(originHash: hash) else {
                return text(.notFound, "this witness has cosigned no checkpoint for that log\n")
            }
            return text(.ok, checkpoint)
        }
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "hallmark-witness"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) }, logger: logger)
    }

    private static func text(_ status: HTTPResponse.Status, _ body: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
