import EdgeCore
import Foundation
import HallmarkCore
import HallmarkKafka
import HallmarkMessages

/// `hallmark bench edge`'s phases over HTTP (``HTTPLoad``, the bench's own keep-alive client):
/// submissions end to end, submissions paced, and cached verification reads.
struct EdgeBench {
    let aggregator: AggregatorBench
    let edge: BenchProcess
    let port: UInt16

    /// A bundle as a camera POSTs it: its HTTP body, the receipt id the edge will give it, and a
    /// client address of its own (each camera of a fleet behind the ingress has one).
    struct Post: Sendable {
        let body: [UInt8]
        let receipt: String
        let address: String
        let hash: String
        /// The submit path it is POSTed to.
        var path = "/api/v1/submit"
        /// For the floor's bare front (``EdgeFloorFront``): the body is the message the edge
        /// would publish, and these headers name and key it.
        var front: [(String, String)] = []
    }

    static func posts(_ bundles: [Message<Submission>], offset: Int) throws -> [Post] {
        try bundles.enumerated().map { i, bundle in try camera(bundle, number: offset + i).post }
    }

    /// Certificate bundles as cameras POST them to `/api/v1/submit-cert`.
    static func certificatePosts(_ bundles: [Message<Submission>], offset: Int) throws -> [Post] {
        try bundles.enumerated().map { i, bundle in try camera(bundle, number: offset + i, kind: .certificate).post }
    }

    /// The bundles as the edge would publish them, for the floor's bare front: each body the
    /// strict message, with its id and Kafka key in headers.
    static func frontPosts(_ bundles: [Message<Submission>], offset: Int) throws -> [Post] {
        try bundles.enumerated().map { i, bundle in
            let (post, message, value) = try camera(bundle, number: offset + i)
            let key = message.body.captureKey.map { String(decoding: $0, as: UTF8.self) }
            return Post(
                body: value, receipt: post.receipt, address: post.address, hash: post.hash, path: post.path,
                front: [(EdgeFloorFront.idHeader, message.id.text)]
                    + (key.map { [(EdgeFloorFront.keyHeader, $0)] } ?? []))
        }
    }

    /// Bundle number `n` as a camera POSTs it, and what the edge publishes for it (read once).
    private static func camera(
        _ bundle: Message<Submission>, number n: Int, kind: CameraBundle.Kind = .token
    ) throws -> (post: Post, message: Message<Submission>, json: [UInt8]) {
        let body = try JSONCoding.encode(bundle.body)
        let (message, json) = try CameraBundle.written(body, kind: kind)
        let path =
            switch (kind, body.starts(with: Array(#"{"image_hash""#.utf8))) {
            case (.certificate, _): "/api/v1/submit-cert"
            case (.token, true): "/api/v1/submit-legacy"
            case (.token, false): "/api/v1/submit"
            }
        let post = Post(
            body: body, receipt: message.id.text, address: "10.\((n >> 16) & 255).\((n >> 8) & 255).\(n & 255)",
            hash: bundle.body.entries[0].imageHash, path: path)
        return (post, message, json)
    }

    static func request(_ post: Post, due: ContinuousClock.Instant? = nil) -> HTTPLoad.Request {
        HTTPLoad.Request(
            method: "POST", path: post.path, body: post.body,
            headers: [("Content-Type", "application/json"), ("X-Forwarded-For", post.address)] + post.front, status: 202,
            due: due)
    }

    /// Every post over `connections` connections at once; the phase ends when the aggregator has
    /// answered every one (read from its answer topic, as the Kafka bench reads it).
    func submit(
        _ posts: [Post], connections: Int
    ) async throws -> (rate: Double, accepted: Int, cost: BenchExchange.Cost, edgeCPU: Double) {
        let edgeBefore = edge.cpuSeconds
        let port = self.port
        let (answers, cost) = try await aggregator.io.exchange(
            reading: aggregator.world.aggregator.submissionOutput, ids: Set(posts.map(\.receipt))
        ) {
            _ = try await HTTPLoad.run(port: port, connections: connections, seconds: 3_600) { connection, count in
                let i = connection + count * connections
                return i < posts.count ? Self.request(posts[i]) : nil
            }
        }
        let accepted = answers.filter { $0.json["status"]?.string == "accepted" }.count
        return (Double(answers.count) / cost.seconds, accepted, cost, edge.cpuSeconds - edgeBefore)
    }

    /// Posts at `rate` per second (open loop: each is due at its time, and its latency counts
    /// from then), each answered when its outcome comes (HALLMARK_EDGE_ANSWER_WAIT_MS): the
    /// latency of a submit that waits for its outcome.
    func paced(_ posts: [Post], rate: Double, connections: Int) async throws -> [Double] {
        // Time for every connection to open before the first is due.
        let start = ContinuousClock.now + .seconds(1)
        let connections = min(connections, posts.count)
        return try await HTTPLoad.run(port: port, connections: connections, seconds: 3_600) { connection, count in
            let i = connection + count * connections
            guard i < posts.count else { return nil }
            return Self.request(posts[i], due: start + .seconds(Double(i) / rate))
        }.latencies
    }

    /// ``paced(_:rate:connections:)``, its percentiles printed after `printed` (a format with
    /// the rate's `%.0f`): `…: p50 …, p90 …, p99 …, max … over N`.
    func pacedPercentiles(
        _ posts: [Post], rate: Double, connections: Int, printed: String
    ) async throws -> (p50: Double, p90: Double, p99: Double, max: Double) {
        let latencies = try await paced(posts, rate: rate, connections: connections)
        let p = BenchExchange.percentiles(latencies)
        printNow(
            String(format: printed, rate)
                + String(
                    format: ": p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms over %d", p.p50, p.p90, p.p99, p.max,
                    latencies.count))
        return (p.p50, p.p90, p.p99, p.max)
    }

    /// GETs of `/api/v1/verify/{hash}` for these hashes (every answer found, with its proof),
    /// first once each (the cache fills), then spread over all of them for `seconds`, by `wrk`
    /// when installed, else by ``HTTPLoad``: reads per second, and the client that made them.
    func verify(
        _ hashes: [String], connections: Int, seconds: Int
    ) async throws -> (rate: Double, edgeCores: Double, client: String) {
        _ = try await HTTPLoad.run(port: port, connections: 8, seconds: 600) { connection, count in
            let i = connection + count * 8
            return i < hashes.count ? HTTPLoad.Request(path: "/api/v1/verify/\(hashes[i])") : nil
        }
        let before = edge.cpuSeconds
        let start = ContinuousClock.now
        let reads: Double
        let client: String
        if let wrk = WrkLoad.executable {
            let load = WrkLoad(wrk: wrk, folder: aggregator.world.folder)
            let threads = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
            reads = Double(
                try load.get(
                    port: port, paths: hashes.map { "/api/v1/verify/\($0)" }, connections: connections, threads: threads,
                    seconds: seconds
                ).requests)
            client = "wrk, \(threads) thread\(threads == 1 ? "" : "s")"
        } else {
            reads = Double(
                try await HTTPLoad.get(port: port, connections: connections, seconds: Double(seconds)) { connection, count in
                    ("/api/v1/verify/\(hashes[(connection * 7919 + count * 104_729) % hashes.count])", nil)
                })
            client = "HTTPLoad: wrk is not installed"
        }
        let elapsed = (ContinuousClock.now - start).seconds
        return (reads / elapsed, (edge.cpuSeconds - before) / elapsed, client)
    }
}
