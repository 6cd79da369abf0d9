import Foundation

/// A `hallmark-authority` process started by a test, its output captured to a file.
final class AuthorityProcess: @unchecked Sendable {
    let process = Process()
    let logFile: URL

    /// `HALLMARK_AUTHORITY_BIN`, or the debug build beside the sources.
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["HALLMARK_AUTHORITY_BIN"] { return URL(fileURLWithPath: path) }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/hallmark-authority")
    }

    init(name: String, environment: [String: String]) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            throw HarnessError("no hallmark-authority binary at \(Self.binary.path): build first (swift build --build-tests)")
        }
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("authority-\(name)-\(UUID()).log")
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

    /// Waits until the log says the stage started.
    func waitUntilStarted(timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while !rawLog.contains("stage started") {
            guard process.isRunning else { throw HarnessError("authority exited: \(rawLog.suffix(600))") }
            guard ContinuousClock.now < deadline else { throw HarnessError("authority did not start: \(rawLog.suffix(600))") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
