import Foundation
import HallmarkKafka

/// A Hallmark executable started by a test as its own process, its output captured to a file.
///
/// The binary comes from `HALLMARK_BIN_DIR`, or the debug build beside the sources
/// (`swift build --build-tests` builds every executable). The process is killed with SIGKILL
/// when this object goes away, so a failing test leaves nothing running.
public final class ServiceProcess: @unchecked Sendable {
    public let process = Process()
    public let logFile: URL
    public let name: String

    /// The folder holding the built executables.
    public static var binaryDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["HALLMARK_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug")
    }

    /// Starts `executable` (a product name such as `hallmark-signer`) with `arguments`; the
    /// process inherits the test's environment (``inheritedEnvironment``) with `environment` laid
    /// over it.
    public convenience init(
        _ executable: String, arguments: [String] = [], name: String, environment: [String: String]
    ) throws {
        let binary = Self.binaryDirectory.appendingPathComponent(executable)
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw HarnessError("no \(executable) at \(binary.path): build first (swift build --build-tests)")
        }
        try self.init(binary: binary, arguments: arguments, name: name, environment: environment)
    }

    /// Starts the executable at `binary` (one that is not Hallmark's, such as a broker of a
    /// test's own), as ``init(_:arguments:name:environment:)`` does.
    public init(binary: URL, arguments: [String] = [], name: String, environment: [String: String]) throws {
        self.name = name
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(binary.lastPathComponent)-\(name)-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let handle = try FileHandle(forWritingTo: logFile)
        process.executableURL = binary
        process.arguments = arguments
        process.environment = Self.inheritedEnvironment.merging(environment) { _, new in new }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    /// The test's environment without a service's own database URL
    /// (`HALLMARK_<SERVICE>_POSTGRES_URL`): that role owns only the service's real schema, while
    /// a service started by a test works in a throwaway schema, which only the test role of
    /// `HALLMARK_POSTGRES_URL` may create. A test that wants the service's role passes its URL.
    public static var inheritedEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.filter { key, _ in
            !(key.hasPrefix("HALLMARK_") && key.hasSuffix("_POSTGRES_URL") && key != "HALLMARK_POSTGRES_URL")
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    public func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the process to exit; returns its status, or nil on timeout.
    public func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return process.terminationStatus
    }

    /// Everything written so far (JSON log lines, and any start-up error on stderr).
    public var rawLog: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// The JSON log lines written so far.
    public var logLines: [[String: Any]] {
        rawLog.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// The partitions the service holds now, by its "partitions assigned" and "partitions
    /// revoked" log lines.
    public var assignedPartitions: Set<String> { KafkaAssignmentLog.held(in: rawLog) }

    /// How many log lines have exactly this message.
    public func logCount(_ message: String) -> Int { logLines.filter { $0["msg"] as? String == message }.count }

    /// Polls the log until `message` appeared `count` times; fails early if the process exits.
    public func waitForLog(_ message: String, count: Int = 1, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while logCount(message) < count {
            guard process.isRunning else { throw HarnessError("\(name) exited: \(rawLog.suffix(2000))") }
            guard ContinuousClock.now < deadline else {
                throw HarnessError("no '\(message)' in the log of \(name): \(rawLog.suffix(600))")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}

/// A test harness step failed (no binary, a service that exited or never logged, a timeout).
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
