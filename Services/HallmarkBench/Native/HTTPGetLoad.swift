import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A load of HTTP/1.1 GETs on keep-alive loopback connections, one blocking socket per thread
/// (off the cooperative pool): lean enough that the server, not the client, is what a bench
/// measures.
enum HTTPGetLoad {
    /// `connections` connections to 127.0.0.1:`port`, each getting `request(connection, n)`'s
    /// path until `seconds` pass; every answer must be 200 with the body length given (when
    /// given). Returns the answers read.
    static func run(
        port: UInt16, connections: Int, seconds: Double,
        request: @escaping @Sendable (_ connection: Int, _ count: Int) -> (path: String, length: Int?)
    ) async throws -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for connection in 0..<connections {
                group.addTask {
                    try await withCheckedThrowingContinuation { continuation in
                        let thread = Thread {
                            continuation.resume(
                                with: Result {
                                    try getLoop(port: port, until: deadline) { request(connection, $0) }
                                })
                        }
                        thread.start()
                    }
                }
            }
            return try await group.reduce(0, +)
        }
    }

    private static func getLoop(port: UInt16, until deadline: Date, next: (Int) -> (path: String, length: Int?)) throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchError("cannot open a socket") }
        defer { close(socket) }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw BenchError("cannot connect to 127.0.0.1:\(port)") }
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var count = 0
        while Date() < deadline {
            let (path, expected) = next(count)
            let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            var sent = 0
            while sent < request.count {
                let n = request[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { throw BenchError("the server closed the connection") }
                sent += n
            }
            // The head, then exactly Content-Length bytes of body.
            var headEnd: Int?
            var length = 0
            while true {
                if headEnd == nil, let end = find(buffer) {
                    headEnd = end
                    let head = String(decoding: buffer[..<end], as: UTF8.self)
                    guard head.hasPrefix("HTTP/1.1 200") else {
                        throw BenchError("GET \(path): \(head.prefix(while: { $0 != "\r" }))")
                    }
                    let field = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    guard let value = field?.split(separator: ":").last,
                        let parsed = Int(value.trimmingCharacters(in: .whitespaces))
                    else { throw BenchError("GET \(path): no Content-Length") }
                    length = parsed
                }
                if let end = headEnd, buffer.count >= end + length { break }
                let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { throw BenchError("the server closed the connection") }
                buffer.append(contentsOf: chunk[..<n])
            }
            if let expected, length != expected { throw BenchError("GET \(path): \(length) bytes, not \(expected)") }
            buffer.removeFirst(headEnd! + length)
            count += 1
        }
        return count
    }

    /// 127.0.0.1:`port` as a socket address.
    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }

    /// The index just past the head's blank line.
    private static func find(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i + 4
        }
        return nil
    }
}

extension HTTPGetLoad {
    /// A loopback TCP port free now (bound to port 0, then released).
    static func freePort() throws -> UInt16 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchError("cannot open a socket") }
        defer { close(socket) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw BenchError("cannot bind a loopback port") }
        return UInt16(bigEndian: address.sin_port)
    }
}
