import Foundation
import HallmarkTestSupport

/// Random HTTP/1.1 requests whose framing is broken in the ways a parser meets: methods, request
/// lines, `Content-Length` and `Transfer-Encoding` combinations, chunk syntax, header counts
/// and sizes, `Range`. Every request is complete as sent (a body as long as any length it
/// declares could mean), so an answer never waits on bytes that will not come.
enum FramingFuzz {
    static let methods = ["GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH", "FOO", "G3T", "get", "CONNECT", "TRACE"]
    static let targets = [
        "/api/v1/submit", "/api/v1/submit-legacy", "/health", "/ready", "/log/checkpoint", "/log/checkpoint%00",
        "/log/tile/0/000.p/3", "/log/tile/0/000", "/log/../etc/passwd", "/api/v1/verify/zz", "/api/v1/submission/x", "*",
        "http://x/health", "/%", "/ops/data", "/" + String(repeating: "a", count: 3000),
    ]
    static let versions = ["HTTP/1.1", "HTTP/1.1", "HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTP/1.x", "HTTP/11", ""]
    static let lengths = ["0", "5", " 5", "05", "-1", "abc", "+5", "5, 5", String(repeating: "9", count: 40), "0x5", ""]
    static let encodings = ["chunked", "Chunked", "identity", "gzip, chunked", "chunked, gzip", "gzip", "x", ""]
    static let ranges = ["bytes=5-1", "bytes=abc", "items=0-1", "bytes=999999999-", "bytes=0-3", "bytes=-5", "bytes=0-1,3-4"]

    /// One request, and whether it is a HEAD (whose answer has no body).
    static func request(_ rng: inout SplitMix64) -> ([UInt8], head: Bool) {
        let method = methods.randomElement(using: &rng)!
        let version = versions.randomElement(using: &rng)!
        var lines = ["\(method) \(targets.randomElement(using: &rng)!)\(version.isEmpty ? "" : " " + version)", "Host: x"]
        if Bool.random(using: &rng) { lines.append("Content-Type: application/json") }
        if Int.random(in: 0..<4, using: &rng) == 0 { lines.append("Range: " + ranges.randomElement(using: &rng)!) }
        var chunked = false
        if Bool.random(using: &rng) {
            lines.append("Content-Length: " + lengths.randomElement(using: &rng)!)
            if Int.random(in: 0..<4, using: &rng) == 0 { lines.append("Content-Length: " + lengths.randomElement(using: &rng)!) }
        }
        if Int.random(in: 0..<3, using: &rng) == 0 {
            let encoding = encodings.randomElement(using: &rng)!
            lines.append("Transfer-Encoding: " + encoding)
            chunked = encoding.lowercased().hasSuffix("chunked")
        }
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: lines += (0..<Int.random(in: 900...1100, using: &rng)).map { "X-H\($0): v" }
        case 1: lines.append("X-Big: " + String(repeating: "b", count: Int.random(in: 60_000...120_000, using: &rng)))
        case 2: lines.append(["No colon here", " folded", "Bad Name: v", "X:\u{0}", ": empty"].randomElement(using: &rng)!)
        default: break
        }
        var body: String
        if chunked {
            body = [
                "5\r\n{}   \r\n0\r\n\r\n", "zz\r\n{}\r\n0\r\n\r\n", "fffffffffffffffffffff\r\n{}\r\n0\r\n\r\n",
                "5\r\n{}\r\n0\r\n\r\n", "-1\r\n\r\n", "5;ext=1\r\n{}   \r\n0\r\n\r\n", "0\r\n\r\n", "5\r\n{}   0\r\n\r\n",
            ]
            .randomElement(using: &rng)!
        } else {
            // As long as the longest length above that a parser could accept ("5"), so none waits.
            body = "{}   "
        }
        if lines.contains(where: { $0.hasPrefix("Content-Length: 0") || $0 == "Content-Length: " }), !chunked { body = "" }
        return (Array((lines.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8), method == "HEAD")
    }
}
