import Foundation
import HallmarkCore
import HallmarkTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP client for an edge a test started: what a camera or a verifier does with curl.
struct EdgeClient: Sendable {
    let port: Int

    /// An answer: its status and its JSON body (nil when the body is not a JSON object).
    struct Answer: @unchecked Sendable {
        let status: Int
        let body: Data
        let headers: [AnyHashable: Any]
        func header(_ name: String) -> String? {
            headers.first { ($0.key as? String)?.lowercased() == name.lowercased() }?.value as? String
        }
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
        subscript(_ key: String) -> Any? { json?[key] }
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Sends `body` as the reference Raspberry Pi does (`requests.post(json=…)`).
    func post(
        _ path: String, _ body: [UInt8], contentType: String? = "application/json", headers: [String: String] = [:]
    ) async throws -> Answer {
        var request = URLRequest(url: url(path))
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        request.setValue("Birthmark-Camera-Pi/0.1.0", forHTTPHeaderField: "User-Agent")
        return try await send(request)
    }

    func get(_ path: String, headers: [String: String] = [:]) async throws -> Answer {
        var request = URLRequest(url: url(path))
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try await send(request)
    }

    private func send(_ request: URLRequest) async throws -> Answer {
        var request = request
        request.timeoutInterval = 30
        request.cachePolicy = .reloadIgnoringLocalCacheData
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return Answer(status: http?.statusCode ?? 0, body: data, headers: http?.allHeaderFields ?? [:])
    }

    /// The receipt's outcome: the submit's answer when it came within the edge's wait, else
    /// what `GET /api/v1/submission/{receipt_id}` says once it is no longer pending.
    func outcome(_ answer: Answer, timeout: Duration = .seconds(60)) async throws -> Answer {
        guard answer["status"] as? String == "pending_validation", let receipt = answer["receipt_id"] as? String else {
            return answer
        }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let later = try await get("/api/v1/submission/\(receipt)")
            if later["status"] as? String != "pending_validation" { return later }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError("receipt \(receipt) still pending after \(timeout)")
    }

    /// Waits until the edge answers `/ready` with 200.
    func waitUntilReady(timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if (try? await get("/ready"))?.status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError("the edge on port \(port) never became ready")
    }
}

extension AggregatorHarness {
    /// Starts an edge publishing to this world's aggregator, on a free port, and waits until
    /// it is ready.
    func startEdge(_ name: String, _ extra: [String: String] = [:]) async throws -> (process: ServiceProcess, client: EdgeClient)
    {
        let process = try ServiceProcess(
            "hallmark-edge", name: "\(id)-\(name)",
            environment: [
                "HALLMARK_EDGE_SUBMISSIONS": aggregator.submissionInput,
                "HALLMARK_EDGE_SUBMISSION_RESULTS": aggregator.submissionOutput, "HALLMARK_EDGE_SCHEMA": "edge_\(id)",
                "HALLMARK_EDGE_VERIFY_REQUESTS": aggregator.verifyInput, "HALLMARK_EDGE_VERIFY_RESULTS": aggregator.verifyOutput,
                "HALLMARK_EDGE_CHECKPOINTS": aggregator.checkpoints, "HALLMARK_EDGE_MODIFICATIONS": aggregator.claimInput,
                "HALLMARK_EDGE_MODIFICATION_RESULTS": aggregator.claimOutput,
                "HALLMARK_EDGE_HOST": "127.0.0.1", "HALLMARK_EDGE_PORT": "0", "HALLMARK_REJECTED_TOPIC": rejected,
                "HALLMARK_METRICS_TOPIC": topic("metrics"), "HALLMARK_GROUP_ID": "test-edge-\(id)",
                "HALLMARK_INSTANCE": name, "HALLMARK_POSTGRES_POOL_SIZE": "4", "HALLMARK_LOG_LEVEL": "info",
                // The log's answers can take seconds on a machine busy with other suites; a test
                // checks what they say, not the 503 of a wait cut short.
                "HALLMARK_EDGE_VERIFY_WAIT_MS": "30000",
            ].merging(extra) { _, new in new })
        try await process.waitForLog("edge listening")
        guard let line = process.logLines.first(where: { $0["msg"] as? String == "edge listening" }),
            let port = (line["port"] as? String).flatMap({ Int($0) })
        else { throw HarnessError("the edge did not say its port") }
        let client = EdgeClient(port: port)
        try await client.waitUntilReady()
        return (process, client)
    }
}

/// Bodies exactly as the reference clients write them.
enum ReferenceBody {
    /// Python's `json.dumps` with its default separators (what `requests.post(json=…)` sends),
    /// members in the given order.
    static func python(_ members: [(String, PythonValue)]) -> [UInt8] {
        Array(("{" + members.map { "\"\($0.0)\": \($0.1.text)" }.joined(separator: ", ") + "}").utf8)
    }

    /// A JSON value as Python writes it.
    indirect enum PythonValue {
        case string(String)
        case int(Int)
        case double(String)
        case ints([Int])
        case bool(Bool)
        case list([PythonValue])
        case object([(String, PythonValue)])
        case null

        var text: String {
            switch self {
            case .string(let s): "\"\(s)\""
            case .int(let n): String(n)
            case .double(let d): d
            case .ints(let list): "[" + list.map(String.init).joined(separator: ", ") + "]"
            case .bool(let b): b ? "true" : "false"
            case .list(let items): "[" + items.map(\.text).joined(separator: ", ") + "]"
            case .object(let members): String(decoding: ReferenceBody.python(members), as: UTF8.self)
            case .null: "null"
            }
        }
    }
}

extension EdgeClient {
    /// Sends `head` and the first `sent` bytes of a body on a raw connection, then waits for the
    /// answer without sending the rest: a client that trickles (slowloris). Returns the answer's
    /// status line and body.
    func trickle(head: String, sent: Int) throws -> (status: String, body: String) {
        let socket = try rawConnection()
        defer { close(socket) }
        let bytes = Array(head.utf8) + Array(repeating: UInt8(ascii: "{"), count: sent)
        _ = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            answer += chunk[..<n]
            if let text = String(bytes: answer, encoding: .utf8), let split = text.range(of: "\r\n\r\n"),
                let length = text[..<split.lowerBound].split(separator: "\r\n").first(where: {
                    $0.lowercased().hasPrefix("content-length:")
                }).flatMap({ Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }),
                text.utf8.count - text.utf8.distance(from: text.startIndex, to: split.upperBound) >= length
            {
                return (text.components(separatedBy: "\r\n")[0], String(text[split.upperBound...]))
            }
        }
        let text = String(decoding: answer, as: UTF8.self)
        return (text.components(separatedBy: "\r\n")[0], text.components(separatedBy: "\r\n\r\n").dropFirst().joined())
    }
}

extension EdgeClient {
    /// A raw TCP connection to the edge (a socket the caller closes).
    func rawConnection() throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw HarnessError("no socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(socket)
            throw HarnessError("cannot connect")
        }
        return socket
    }
}

/// One answer read off a raw connection.
struct RawAnswer {
    var status: String
    var headers: [String: String]
    var body: [UInt8]
}

extension EdgeClient {
    /// Sends `requests` in one write on one raw connection (HTTP/1.1 pipelining) and reads
    /// `count` answers in the order they come; `closed` says whether the edge then closed the
    /// connection (read within `closeWait`).
    func pipelined(
        _ requests: [UInt8], answers count: Int, closeWait: Int32 = 1_000
    ) throws -> (
        answers: [RawAnswer], closed: Bool
    ) {
        let socket = try rawConnection()
        defer { close(socket) }
        _ = requests.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var buffer = [UInt8]()
        var answers: [RawAnswer] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var closed = false
        while answers.count < count || !closed {
            // Every answer is in: wait a little for the close, no longer.
            if answers.count == count {
                var poll = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                guard Glibc.poll(&poll, 1, closeWait) > 0 else { break }
            }
            let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard n > 0 else {
                closed = true
                break
            }
            buffer += chunk[..<n]
            while let answer = Self.answer(from: &buffer) { answers.append(answer) }
        }
        return (answers, closed)
    }

    /// The first whole answer in `buffer` (with a Content-Length), removed from it.
    private static func answer(from buffer: inout [UInt8]) -> RawAnswer? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = buffer.indices.dropLast(3).first(where: { Array(buffer[$0..<$0 + 4]) == separator }) else {
            return nil
        }
        let lines = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        guard buffer.count >= end + 4 + length else { return nil }
        let body = Array(buffer[(end + 4)..<(end + 4 + length)])
        buffer.removeFirst(end + 4 + length)
        return RawAnswer(status: lines[0], headers: headers, body: body)
    }
}
