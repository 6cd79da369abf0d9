import Foundation

/// A `hallmark-signer` process started by a test, its output captured to a file.
final class SignerProcess: @unchecked Sendable {
    let process = Process()
    let logFile: URL
    let environment: [String: String]

    /// The `hallmark-signer` binary: `HALLMARK_SIGNER_BIN`, or the debug build beside the sources.
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["HALLMARK_SIGNER_BIN"] { return URL(fileURLWithPath: path) }
        return SignerHarness.root.appendingPathComponent(".build/debug/hallmark-signer")
    }

    init(name: String, environment: [String: String]) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            throw HarnessError("no hallmark-signer at \(Self.binary.path): build first (swift build --build-tests)")
        }
        self.environment = environment
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("hallmark-signer-\(name)-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let handle = try FileHandle(forWritingTo: logFile)
        process.executableURL = Self.binary
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

    var rawLog: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    func logCount(_ message: String) -> Int {
        rawLog.split(separator: "\n").filter { $0.contains("\"msg\":\"\(message)\"") }.count
    }

    /// Polls the log until `message` appeared `count` times.
    func waitForLog(_ message: String, count: Int = 1, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while logCount(message) < count {
            guard process.isRunning else { throw HarnessError("signer exited: \(rawLog.suffix(2000))") }
            guard ContinuousClock.now < deadline else { throw HarnessError("no '\(message)' in the signer log") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
