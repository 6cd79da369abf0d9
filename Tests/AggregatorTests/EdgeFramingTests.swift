import Foundation
import HallmarkTestSupport
import Testing

/// The edge's HTTP framing as an attacker and a broken client would send it, over raw sockets
/// to an edge process (issue #53, 1–4): every refusal is a typed 4xx with the JSON error (never
/// a 503, which the reference camera retries for ever, never an empty 400), the log's files
/// ignore `Range` and refuse paths outside the tile grammar, and the same process serves on.
@Suite("Edge framing", .serialized, .timeLimit(.minutes(5)))
struct EdgeFramingTests {
    static let checkpoint = Array(
        "example.org/log\n3\nq6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s=\n\n— example.org/log AAAA\n".utf8)

    /// An edge serving a tile directory that holds a checkpoint and one tile.
    static func edge(_ h: AggregatorHarness) async throws -> (ServiceProcess, RawHTTP) {
        let tiles = FileManager.default.temporaryDirectory.appendingPathComponent("framing-\(h.id)")
        try FileManager.default.createDirectory(
            at: tiles.appendingPathComponent("tile/0/000.p"), withIntermediateDirectories: true)
        try Data(checkpoint).write(to: tiles.appendingPathComponent("checkpoint"))
        try Data(repeating: 7, count: 96).write(to: tiles.appendingPathComponent("tile/0/000.p/3"))
        let (process, client) = try await h.startEdge(
            "framing",
            [
                "HALLMARK_EDGE_TILES_DIR": tiles.path, "HALLMARK_EDGE_RATE_LIMIT": "1000000",
                "HALLMARK_EDGE_READ_TIMEOUT_MS": "2000", "HALLMARK_EDGE_ANSWER_WAIT_MS": "100",
            ])
        return (process, RawHTTP(port: client.port))
    }

    static func request(_ head: String, _ body: String = "") -> [UInt8] { Array((head + "\r\n\r\n" + body).utf8) }

    /// `answer` is a typed refusal: `status`, the JSON error body with `code`.
    static func expectTyped(_ answer: RawHTTP.Answer, _ status: Int, _ code: String, _ what: String) {
        #expect(answer.status == status && answer.json?["error"] as? String == code && !answer.cut, "\(what): \(answer)")
        #expect(answer.header("Content-Type") == "application/json", "\(what): \(answer)")
    }

    @Test func brokenFramingIsATypedRefusal() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (edge, raw) = try await Self.edge(h)
        defer { edge.signal(SIGKILL) }
        let post = "POST /api/v1/submit HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
        let cases: [(String, [UInt8], Int, String)] = [
            ("bad chunk size", Self.request(post + "\r\nTransfer-Encoding: chunked", "zz\r\n{}\r\n0\r\n\r\n"), 400, "malformed"),
            (
                "chunk size overflow",
                Self.request(post + "\r\nTransfer-Encoding: chunked", "fffffffffffffffffffff\r\n{}\r\n0\r\n\r\n"), 400,
                "malformed"
            ),
            ("identity", Self.request(post + "\r\nTransfer-Encoding: identity", "{}"), 400, "malformed"),
            ("length -1", Self.request(post + "\r\nContent-Length: -1", "{}"), 400, "malformed"),
            ("length abc", Self.request(post + "\r\nContent-Length: abc", "{}"), 400, "malformed"),
            (
                "length of 40 digits", Self.request(post + "\r\nContent-Length: " + String(repeating: "9", count: 40)), 400,
                "malformed"
            ),
            ("two lengths", Self.request(post + "\r\nContent-Length: 2\r\nContent-Length: 3", "{}"), 400, "malformed"),
            (
                "length and chunked",
                Self.request(post + "\r\nContent-Length: 2\r\nTransfer-Encoding: chunked", "2\r\n{}\r\n0\r\n\r\n"), 400,
                "malformed"
            ),
            ("method FOO", Self.request("FOO /health HTTP/1.1\r\nHost: x"), 400, "malformed"),
            ("no version", Self.request("GET /health\r\nHost: x"), 400, "malformed"),
            ("bad version", Self.request("GET /health HTTP/9.9\r\nHost: x"), 400, "malformed"),
            ("garbage line", Self.request("\u{1}\u{2}\u{3} garbage"), 400, "malformed"),
            ("space in target", Self.request("GET /he alth HTTP/1.1\r\nHost: x"), 400, "malformed"),
            (
                "1 MiB header",
                Self.request("GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 1 << 20)),
                431, "headers_too_large"
            ),
            (
                "1 MiB cookie",
                Self.request("GET /health HTTP/1.1\r\nHost: x\r\nCookie: a=" + String(repeating: "b", count: 1 << 20)),
                431, "headers_too_large"
            ),
            (
                "1 MiB URL", Self.request("GET /" + String(repeating: "u", count: 1 << 20) + " HTTP/1.1\r\nHost: x"), 431,
                "headers_too_large"
            ),
            (
                "1,000 headers",
                Self.request("GET /health HTTP/1.1\r\nHost: x" + (0..<1000).map { "\r\nX-H\($0): v" }.joined()), 431,
                "headers_too_large"
            ),
            ("CONNECT", Self.request("CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443"), 405, "method_not_allowed"),
        ]
        for (what, bytes, status, code) in cases {
            Self.expectTyped(try raw.exchange(bytes), status, code, what)
        }
        // 999 headers are still read.
        let many = try raw.exchange(
            Self.request("GET /health HTTP/1.1\r\nHost: x" + (0..<998).map { "\r\nX-H\($0): v" }.joined()))
        #expect(many.status == 200, "\(many)")
        #expect(try raw.exchange(Self.request("GET /health HTTP/1.1\r\nHost: x")).status == 200)
        #expect(!edge.rawLog.contains("HTTPParserError") && !edge.rawLog.contains("request failed"))
    }

    @Test func theLogsFilesIgnoreRangeAndRefuseStrayPaths() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (edge, raw) = try await Self.edge(h)
        defer { edge.signal(SIGKILL) }
        let get = "GET /log/checkpoint HTTP/1.1\r\nHost: x"
        for range in ["bytes=5-1", "bytes=abc", "items=0-1", "bytes=999999999-", "bytes=0-3", "bytes=-5", "bytes=0-1,3-4", ""] {
            let answer = try raw.exchange(Self.request(get + "\r\nRange: " + range))
            #expect(answer.status == 200 && answer.body == Self.checkpoint && !answer.cut, "Range: \(range): \(answer)")
            #expect(answer.header("Content-Length") == String(Self.checkpoint.count) && answer.header("Content-Range") == nil)
            #expect(answer.header("Accept-Ranges") == nil, "\(answer)")
        }
        let tile = try raw.exchange(Self.request("GET /log/tile/0/000.p/3 HTTP/1.1\r\nHost: x\r\nRange: bytes=0-0"))
        #expect(tile.status == 200 && tile.body.count == 96, "\(tile)")
        for path in [
            "/log/checkpoint%00", "/log/checkpoint%2500", "/log/checkpoint/", "/log/%63heckpoint", "/log/../log/checkpoint",
            "/log/tile/0/000.p/3%00", "/log/tile/0/00", "/log/tile/64/000", "/log/tile/0/x1/000", "/log/tile/+0/000", "/log/x",
            "/log/tile/entries/000.p/256", "/log/",
        ] {
            Self.expectTyped(try raw.exchange(Self.request("GET \(path) HTTP/1.1\r\nHost: x")), 400, "malformed", path)
        }
        // In the grammar but not written: 404.
        Self.expectTyped(try raw.exchange(Self.request("GET /log/tile/0/001 HTTP/1.1\r\nHost: x")), 404, "not_found", "no tile")
    }

    /// Random framing, 400 requests from a fixed seed: each gets an answer, none a 5xx, every
    /// 4xx carries the JSON error, and the same process serves throughout.
    @Test func randomFramingNeverGetsA5xx() async throws {
        let h = try await AggregatorHarness()
        defer { Task { await h.close() } }
        let (edge, raw) = try await Self.edge(h)
        defer { edge.signal(SIGKILL) }
        let seed = UInt64.random(in: 0...UInt64.max)
        var rng = SplitMix64(seed: seed)
        for i in 0..<400 {
            let (bytes, head) = FramingFuzz.request(&rng)
            let answer = try raw.exchange(bytes, head: head)
            let what = "seed \(seed), case \(i): \(String(decoding: bytes.prefix(300), as: UTF8.self).debugDescription)"
            guard let status = answer.status else {
                Issue.record("no answer: \(what): \(answer)")
                continue
            }
            #expect(status < 500, "\(what): \(answer)")
            if status >= 400, !head {
                #expect(answer.json?["error"] is String, "\(what): \(answer)")
            }
        }
        #expect(try raw.exchange(Self.request("GET /health HTTP/1.1\r\nHost: x")).status == 200)
        #expect(edge.process.isRunning && edge.logCount("edge listening") == 1)
    }
}
