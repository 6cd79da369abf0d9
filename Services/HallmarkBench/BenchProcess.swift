import Foundation
import HallmarkKafka

/// A service process started by a benchmark; its output goes to a temporary log file.
final class BenchProcess: @unchecked Sendable {
    let process = Process()
    let logFile: URL

    init(binary: URL, arguments: [String] = [], environment: [String: String]) throws {
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw BenchError("no executable at \(binary.path): build it first (swift build -c release)")
        }
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("hallmark-bench-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let handle = try FileHandle(forWritingTo: logFile)
        process.executableURL = binary
        process.arguments = arguments
        // Without a service's own database URL: its role owns only the real schema, and a
        // bench's throwaway schema is made by the role of HALLMARK_POSTGRES_URL.
        let inherited = ProcessInfo.processInfo.environment.filter { key, _ in
            !(key.hasPrefix("HALLMARK_") && key.hasSuffix("_POSTGRES_URL") && key != "HALLMARK_POSTGRES_URL")
        }
        process.environment = inherited.merging(environment) { _, new in new }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        BenchChildren.add(process.processIdentifier)
    }

    /// The folder of the service executables: `option` (a `--binaries` flag), else beside the
    /// running `hallmark`.
    static func directory(_ option: String?) -> URL {
        option.map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// Waits until the log has a line with this `msg`; throws if the process exits first.
    func waitForLog(_ message: String, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            if text.contains("\"msg\":\"\(message)\"") { return }
            guard process.isRunning else { throw BenchError("service exited: \(text.suffix(1000))") }
            guard ContinuousClock.now < deadline else { throw BenchError("service did not log '\(message)'") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The partitions the service holds now, by its rebalance log lines.
    var assignedPartitions: Set<String> {
        KafkaAssignmentLog.held(in: (try? String(contentsOf: logFile, encoding: .utf8)) ?? "")
    }

    /// CPU seconds the process has used so far (user + system, from `/proc`); 0 elsewhere.
    var cpuSeconds: Double { ProcessCPU.seconds(ofProcess: process.processIdentifier) ?? 0 }

    /// SIGTERM, then SIGKILL if it has not exited within 10 s; removes the log.
    func stop() {
        defer { BenchChildren.remove(process.processIdentifier) }
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        try? FileManager.default.removeItem(at: logFile)
    }
}
