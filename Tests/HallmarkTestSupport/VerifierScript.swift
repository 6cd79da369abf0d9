import Foundation
import HallmarkSubprocess

/// A script of `Tests/Verifiers` run with the project's venv Python (deploy/local/setup: PyPI
/// cryptography, cloudevents, tlog-scales), which `HALLMARK_STATE` names (`.hallmark` in the
/// checkout by default).
public enum VerifierScript {
    /// The checkout's root.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The venv's Python.
    public static var python: String {
        (ProcessInfo.processInfo.environment["HALLMARK_STATE"] ?? root.appendingPathComponent(".hallmark").path)
            + "/venv/bin/python"
    }

    /// Runs `Tests/Verifiers/<name>` with `arguments`; its status and everything it printed.
    public static func run(
        _ name: String, _ arguments: [String], timeout: Duration = .seconds(120)
    ) async throws -> Subprocess.Result {
        try await Subprocess.run(
            python, [root.appendingPathComponent("Tests/Verifiers/\(name)").path] + arguments, timeout: timeout)
    }
}
