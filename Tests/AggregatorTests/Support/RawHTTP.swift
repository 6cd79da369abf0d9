import Foundation
import Glibc

/// One HTTP/1.1 exchange over a raw socket: the request's bytes exactly as given (broken framing
/// included), and the answer as the wire carried it.
struct RawHTTP {
    /// What came back.
    struct Answer: CustomStringConvertible {
        /// The status code; nil when no status line arrived.
        var status: Int?
        var headers: [(String, String)] = []
        var body: [UInt8] = []
        /// The connection closed, or the time ran out, before the answer was whole.
        var cut = false

        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }

        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        }

        var description: String {
            "\(status.map(String.init) ?? "no status")\(cut ? " (cut)" : "") \(headers.map { "\($0.0): \($0.1)" }) "
                + String(decoding: body.prefix(300), as: UTF8.self)
        }
    }

    let port: Int

    /// Sends `request` on a new connection and reads one answer: until its `Content-Length`
    /// is read (none for `HEAD`, 204 or 304), or the edge closes, or `timeout` passes.
    func exchange(_ request: [UInt8], head: Bool = false, timeout: Int = 10) throws -> Answer {
        let socket = try EdgeClient(port: port).rawConnection()
        defer { close(socket) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var offset = 0
        while offset < request.count {
            let n = request[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            // The edge may answer and close before it has read everything (a header past its
            // limit): what it wrote is still read below.
            guard n > 0 else { break }
            offset += n
        }
        var received = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let answer = Self.parse(received, head: head) { return answer }
            let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            received += chunk[..<n]
        }
        var answer = Self.parse(received, head: head, closed: true) ?? Answer()
        answer.cut = true
        return answer
    }

    /// The answer in `bytes` once it is whole (or, when `closed`, whatever arrived).
    static func parse(_ bytes: [UInt8], head: Bool, closed: Bool = false) -> Answer? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = bytes.firstRange(of: separator) else { return nil }
        let lines = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        var answer = Answer()
        let parts = lines[0].split(separator: " ", maxSplits: 2)
        answer.status = parts.count >= 2 && parts[0].hasPrefix("HTTP/1.") ? Int(parts[1]) : nil
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            answer.headers.append(
                (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let body = bytes[end.upperBound...]
        if head || answer.status == 204 || answer.status == 304 { return answer }
        if answer.header("Transfer-Encoding")?.lowercased() == "chunked" {
            guard closed || body.suffix(5).elementsEqual(Array("0\r\n\r\n".utf8)) else { return nil }
            answer.body = Array(body)
            return answer
        }
        guard let length = answer.header("Content-Length").flatMap({ Int($0) }) else {
            guard closed else { return nil }
            answer.body = Array(body)
            return answer
        }
        // A negative length is no framing at all (the edge once wrote one for a Range).
        guard length >= 0 else {
            answer.body = Array(body)
            answer.cut = true
            return answer
        }
        guard body.count >= length else {
            guard closed else { return nil }
            answer.body = Array(body)
            answer.cut = true
            return answer
        }
        answer.body = Array(body.prefix(length))
        return answer
    }
}
