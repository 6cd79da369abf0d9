import Foundation
import HallmarkSubprocess
import Yams

/// The repository's deployment files (deploy/k8s, deploy/compose) and the tools that check them.
enum DeployFiles {
    /// The repository root, from this file's path (Tests/DeployTests/DeployFiles.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `_FILE` settings that name public files, not secrets: the manufacturer CAs' certificates
    /// (DESIGN BM-CERT), on a read-only volume the deployment fills, not a Secret.
    static let publicFiles: Set<String> = ["HALLMARK_AGGREGATOR_DEVICE_CA_FILE"]

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    static func text(_ relative: String) throws -> String { try String(contentsOfFile: path(relative), encoding: .utf8) }

    /// A tool that `deploy/local/setup` installs into the project's venv (`HALLMARK_STATE`/venv/bin).
    static func venvTool(_ name: String) -> String {
        let state = ProcessInfo.processInfo.environment["HALLMARK_STATE"] ?? path(".hallmark")
        return state + "/venv/bin/" + name
    }

    /// Every YAML document of a text, as plain values (mappings become `[String: Any]`).
    static func documents(yaml: String) throws -> [[String: Any]] {
        try Yams.load_all(yaml: yaml).compactMap { plain($0) as? [String: Any] }
    }

    /// Yams gives `[AnyHashable: Any]` for mappings; the tests read `[String: Any]`.
    private static func plain(_ value: Any) -> Any {
        switch value {
        case let mapping as [AnyHashable: Any]:
            var out: [String: Any] = [:]
            for (key, item) in mapping { out["\(key.base)"] = plain(item) }
            return out
        case let sequence as [Any]: return sequence.map(plain)
        default: return value
        }
    }

    /// Runs a program to its end; its standard output and error together.
    static func run(
        _ executable: String, _ arguments: [String], in directory: String? = nil
    ) async throws -> (status: Int32, output: String) {
        let result = try await Subprocess.run(executable, arguments, in: directory)
        return (result.status, result.output)
    }
}

/// Typed reads into parsed YAML, so a wrong shape is a test failure rather than a crash.
extension Dictionary where Key == String, Value == Any {
    func map(_ key: String) -> [String: Any]? { self[key] as? [String: Any] }
    func list(_ key: String) -> [Any] { self[key] as? [Any] ?? [] }
    func maps(_ key: String) -> [[String: Any]] { list(key).compactMap { $0 as? [String: Any] } }
    func string(_ key: String) -> String? { self[key] as? String }
    func int(_ key: String) -> Int? { self[key] as? Int }
    func bool(_ key: String) -> Bool? { self[key] as? Bool }
    /// A path of keys: `object.at("spec", "template", "spec")`.
    func at(_ keys: String...) -> [String: Any]? {
        var current: [String: Any]? = self
        for key in keys { current = current?.map(key) }
        return current
    }
}
