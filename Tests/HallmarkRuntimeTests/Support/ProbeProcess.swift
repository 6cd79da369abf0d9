import Foundation

/// A `hallmark probe` process started by a test, its output captured to a file.
final class ProbeProcess: @unchecked Sendable {
    let process = Process()
    let logFile: URL
    let name: String

    /// The `hallmark` binary: `HALLMARK_BIN`, or the debug build beside the sources.
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["HALLMARK_BIN"] { return URL(fileURLWithPath: path) }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/hallmark")
    }

    init(name: String, environment: [String: String]) throws {
        self.name = name
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            throw HarnessError("no hallmark binary at \(Self.binary.path): build first (swift build --build-tests)")
        }
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("hallmark-\(name)-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let handle = try FileHandle(forWritingTo: logFile)
        process.executableURL = Self.binary
        process.arguments = ["probe"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the process to exit; returns its status, or nil on timeout.
    func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return process.terminationStatus
    }

    /// The JSON log lines written so far.
    var logLines: [[String: Any]] {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    func logCount(_ message: String) -> Int { logLines.filter { $0["msg"] as? String == message }.count }

    var rawLog: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
