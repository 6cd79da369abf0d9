import Foundation
import HallmarkTestSupport
import Testing

/// `hallmark bench` stopped from outside (SIGTERM, as `timeout` or a CI runner sends; SIGINT
/// from Ctrl-C) takes the services it started with it, so none goes on polling the broker and
/// the database under the next measurement.
@Suite("hallmark bench, stopped", .serialized, .timeLimit(.minutes(5)))
struct BenchSignalTests {
    @Test(arguments: [SIGTERM, SIGINT])
    func theServicesItStartedStopWithIt(signal: Int32) async throws {
        let bench = try ServiceProcess(
            "hallmark", arguments: ["bench", "edge", "--bundles", "200", "--cameras", "2"], name: "bench-\(signal)",
            environment: [:])
        defer { bench.signal(SIGKILL) }
        let pid = bench.process.processIdentifier
        // The three services are up once the bench says what it runs on.
        let started = try await eventually(timeout: .seconds(120), interval: .milliseconds(200)) {
            let text = (try? String(contentsOf: bench.logFile, encoding: .utf8)) ?? ""
            guard bench.process.isRunning else { throw HarnessError("the bench exited: \(text.suffix(2000))") }
            return text.contains("hallmark bench edge:")
        }
        try #require(started, "the bench never started its services")
        let children = Self.children(of: pid)
        #expect(children.count >= 3, "\(children)")

        bench.signal(signal)
        #expect(await bench.waitForExit(timeout: .seconds(30)) != nil, "the bench did not exit")
        let gone = try await eventually(timeout: .seconds(30)) { children.allSatisfy { !Self.alive($0) } }
        #expect(gone, "still running: \(children.filter(Self.alive))")
        for child in children where Self.alive(child) { kill(child, SIGKILL) }
    }

    /// The processes whose parent is `pid`, from `/proc`.
    static func children(of pid: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let child = pid_t(entry), let stat = Self.stat(child), stat.parent == pid else { return nil }
            return child
        }
    }

    /// Whether `pid` runs (a zombie, exited but not yet reaped, does not).
    static func alive(_ pid: pid_t) -> Bool {
        guard let stat = stat(pid) else { return false }
        return stat.state != "Z"
    }

    private static func stat(_ pid: pid_t) -> (state: Character, parent: pid_t)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After the command name: the state, then the parent's id.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 1, let state = fields[0].first, let parent = pid_t(fields[1]) else { return nil }
        return (state, parent)
    }
}
