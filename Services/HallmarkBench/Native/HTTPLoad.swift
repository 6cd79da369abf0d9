import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A load of HTTP/1.1 requests on keep-alive loopback connections, one blocking socket per
/// thread (off the cooperative pool): lean enough that the server, not the client, is what a
/// bench measures.
enum HTTPLoad {
    /// One request, and what its answer must be.
    struct Request: Sendable {
        var method = "GET"
        var path: String
        var body: [UInt8] = []
        var headers: [(String, String)] = []
        /// The status the answer must have.
        var status = 200
        /// The body length the answer must have, when given.
        var length: Int?
        /// When the request is due (a paced load): sent no earlier, and its latency counts from
        /// then, so a server that falls behind is charged for the wait (no coordinated omission).
        var due: ContinuousClock.Instant?
    }

    /// What a load did: answers read, and the latency of each due request (ms, due to answer).
    struct Outcome: Sendable {
        var answers = 0
        var latencies: [Double] = []
    }

    /// `connections` connections to 127.0.0.1:`port`, each sending `request(connection, n)` until
    /// `seconds` pass or it returns nil; every answer must have the request's status (and body
    /// length, when given).
    static func run(
        port: UInt16, connections: Int, seconds: Double,
        request: @escaping @Sendable (_ connection: Int, _ count: Int) -> Request?
    ) async throws -> Outcome {
        let deadline = Date().addingTimeInterval(seconds)
        return try await withThrowingTaskGroup(of: Outcome.self) { group in
            for connection in 0..<connections {
                group.addTask {
                    try await withCheckedThrowingContinuation { continuation in
                        let thread = Thread {
                            continuation.resume(
                                with: Result {
                                    try loop(port: port, until: deadline) { request(connection, $0) }
                                })
                        }
                        thread.stackSize = 1 << 20
                        thread.start()
                    }
                }
            }
            return try await group.reduce(into: Outcome()) { total, one in
                total.answers += one.answers
                total.latencies += one.latencies
            }
        }
    }

    /// GETs of `path(connection, n)` answered 200 (with the body length given): the answers read.
    static func get(
        port: UInt16, connections: Int, seconds: Double,
        path: @escaping @Sendable (_ connection: Int, _ count: Int) -> (path: String, length: Int?)
    ) async throws -> Int {
        try await run(port: port, connections: connections, seconds: seconds) { connection, count in
            let (path, length) = path(connection, count)
            return Request(path: path, length: length)
        }.answers
    }

    private static func loop(port: UInt16, until deadline: Date, next: (Int) -> Request?) throws -> Outcome {
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
        var outcome = Outcome()
        while Date() < deadline, let request = next(outcome.answers) {
            if let due = request.due {
                let wait = due - ContinuousClock.now
                if wait > .zero {
                    Thread.sleep(forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18)
                }
            }
            var head = "\(request.method) \(request.path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
            if request.method != "GET" { head += "Content-Length: \(request.body.count)\r\n" }
            let bytes = Array((head + "\r\n").utf8) + request.body
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { throw BenchError("the server closed the connection") }
                sent += n
            }
            // The head, then exactly Content-Length bytes of body.
            var headEnd: Int?
            var length = 0
            while true {
                if headEnd == nil, let end = find(buffer) {
                    headEnd = end
                    let answer = String(decoding: buffer[..<end], as: UTF8.self)
                    guard answer.hasPrefix("HTTP/1.1 \(request.status)") else {
                        throw BenchError("\(request.method) \(request.path): \(answer.prefix(while: { $0 != "\r" }))")
                    }
                    let field = answer.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    guard let value = field?.split(separator: ":").last,
                        let parsed = Int(value.trimmingCharacters(in: .whitespaces))
                    else { throw BenchError("\(request.method) \(request.path): no Content-Length") }
                    length = parsed
                }
                if let end = headEnd, buffer.count >= end + length { break }
                let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { throw BenchError("the server closed the connection") }
                buffer.append(contentsOf: chunk[..<n])
            }
            if let expected = request.length, length != expected {
                throw BenchError("\(request.method) \(request.path): \(length) bytes, not \(expected)")
            }
            buffer.removeFirst(headEnd! + length)
            if let due = request.due {
                let elapsed = ContinuousClock.now - due
                outcome.latencies.append(
                    Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            }
            outcome.answers += 1
        }
        return outcome
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

extension HTTPLoad {
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
