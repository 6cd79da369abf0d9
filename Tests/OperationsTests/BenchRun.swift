import Foundation
import HallmarkTestSupport
import Testing

/// A `hallmark bench` run to its end, on the real broker and PostgreSQL, and what it printed.
struct BenchRun {
    /// Everything the bench printed.
    let text: String

    /// The printed lines.
    var lines: [String] { text.split(separator: "\n").map(String.init) }

    /// The end of the output, shown beside a failed expectation.
    var tail: Substring { text.suffix(3000) }

    /// The first line that begins with `prefix`, or an empty one.
    func line(_ prefix: String) -> String { lines.first { $0.hasPrefix(prefix) } ?? "" }

    /// Runs `hallmark bench` with `arguments` (the first names the bench) and waits up to
    /// `timeout` for it to exit; the test stops unless it exits 0.
    static func run(
        _ arguments: [String], timeout: Duration, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> BenchRun {
        let bench = try ServiceProcess(
            "hallmark", arguments: ["bench"] + arguments, name: "bench-\(arguments.first ?? "")", environment: [:])
        defer { bench.signal(SIGKILL) }
        let status = await bench.waitForExit(timeout: timeout)
        let run = BenchRun(text: bench.rawLog)
        try #require(status == 0, "exit \(String(describing: status)): \(run.tail)", sourceLocation: sourceLocation)
        return run
    }
}
