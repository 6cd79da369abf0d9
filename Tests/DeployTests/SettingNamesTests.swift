import Foundation
import HallmarkCLICore
import HallmarkRuntime
import Testing

/// Every `HALLMARK_…` variable the docs, the README and the deployment files name is declared
/// (issue 31: a documented variable that no longer existed):
/// - a service's, the runtime's or the CLI's ``Setting`` (what `hallmark config` lists), or a
///   declared default that looks like one;
/// - a stage's own flow variable, `HALLMARK_<SERVICE>_<STAGE>_<FLOW SETTING>`;
/// - one of a declared family, such as `HALLMARK_SIGNER_SECRET_<VERSION>`;
/// - or a variable of the deployment tools themselves: expanded where it is named
///   (`${HALLMARK_TAG:-dev}` in compose, `$(HALLMARK_POSTGRES_HOST)` in a manifest), or set or
///   read by a script or a test and not named like a service's (`HALLMARK_PG_PORT`). A name
///   with a service's prefix must be declared; a script setting it is not enough.
@Suite("Setting names", .timeLimit(.minutes(1)))
struct SettingNamesTests {
    /// Where variables are named for users.
    static let documents = ["README.md", "docs", "deploy/compose", "deploy/k8s", "deploy/containers"]
    /// The deployment tools' scripts, and the tests: where a tool's own variables are set or read.
    static let tools = [
        "deploy/local", ".ci", "deploy/containers/build", "deploy/containers/test", "deploy/containers/healthcheck",
        "deploy/containers/env.sh", "deploy/compose/make-secrets", "deploy/compose/topics.sh", "Tests",
    ]
    /// A service's variables start so; they must be declared.
    static let servicePrefixes = ["SIGNER", "GATEWAY", "AUTHORITY", "AGGREGATOR", "PROBE"].map { "HALLMARK_\($0)_" }

    @Test func everyNamedVariableIsDeclared() throws {
        let known = try Self.knownNames()
        var unknown: [String: Set<String>] = [:]
        let documents = try Self.files(under: Self.documents).map {
            ($0, try String(contentsOfFile: DeployFiles.path($0), encoding: .utf8))
        }
        // Set in one file (a ConfigMap), expanded in another (a Deployment).
        let expanded = Set(documents.flatMap { Self.matches(#"\$[({](HALLMARK_[A-Z0-9_]+)"#, in: $0.1) })
        for (file, text) in documents {
            for name in Self.names(in: text) where !known(name) && !expanded.contains(name) {
                unknown[name, default: []].insert(file)
            }
        }
        #expect(
            unknown.isEmpty,
            "\(unknown.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value.sorted().joined(separator: ", ")))" })")
    }

    /// The check itself: a made-up name is not known, however it is spelled.
    @Test func theCheckTellsNamesApart() throws {
        let known = try Self.knownNames()
        for name in [
            "HALLMARK_MAX_BATCH", "HALLMARK_SIGNER_KEY_CACHE_SIZE", "HALLMARK_GATEWAY_POSTGRES_URL",
            "HALLMARK_SIGNER_EVENTS_PER_PARTNER", "HALLMARK_AGGREGATOR_INTAKE_MAX_BATCH", "HALLMARK_SIGNER_SECRET_V2",
            "HALLMARK_GATEWAY_KEK_FILE", "HALLMARK_LOG_LEVEL", "HALLMARK_OPERATOR_KEY_FILE", "HALLMARK_PG_PORT",
        ] {
            #expect(known(name), "\(name)")
        }
        for name in [
            "HALLMARK_SIGNER_REPLAY_POOL_SIZE", "HALLMARK_AGGREGATOR_INTAKE_MAX_BATCHES", "HALLMARK_SIGNER_SECRETS",
            "HALLMARK_LOG_LEVELS",
        ] {
            #expect(!known(name), "\(name)")
        }
    }

    /// Whether a name is declared, a stage's flow variable, of a family, or a tool's.
    static func knownNames() throws -> @Sendable (String) -> Bool {
        let variables = ConfigCommand.sections(service: nil).flatMap(\.variables), sections = variables.map(\.name)
        // A default can look like a name (the aggregator's authority id is `HALLMARK_AUTHORITY`).
        let declared = Set(sections.filter { !$0.contains("<") } + variables.map(\.defaultValue))
        let families = sections.filter { $0.contains("<") }.map { String($0[..<$0.firstIndex(of: "<")!]) }
        let flow = StageConfiguration.Variable.flow(service: "x", stage: "y").map {
            String($0.name.dropFirst("HALLMARK_X_Y".count))
        }
        var tools = Set<String>()
        // Not this file: it names made-up variables on purpose.
        for file in try files(under: Self.tools) where !file.hasSuffix("SettingNamesTests.swift") {
            let text = try String(contentsOfFile: DeployFiles.path(file), encoding: .utf8)
            tools.formUnion(names(in: text).filter { name in !servicePrefixes.contains { name.hasPrefix($0) } })
        }
        let prefixes = servicePrefixes
        return { [tools] name in
            if declared.contains(name) || tools.contains(name) { return true }
            if families.contains(where: { name.hasPrefix($0) && name.count > $0.count }) { return true }
            // HALLMARK_<SERVICE>_<STAGE>_<FLOW SETTING>, the stage a non-empty name.
            return prefixes.contains { prefix in
                name.hasPrefix(prefix)
                    && flow.contains { name.hasSuffix($0) && name.count > prefix.count + $0.count }
            }
        }
    }

    /// `HALLMARK_…` names in a text (a name ends in a letter or digit, so `HALLMARK_<SERVICE>_…`
    /// and a bare prefix are not names).
    static func names(in text: String) -> Set<String> {
        Set(matches(#"(?<![A-Za-z0-9_])(HALLMARK_[A-Z0-9_]*[A-Z0-9])(?![A-Za-z0-9_<])"#, in: text))
    }

    static func matches(_ pattern: String, in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    /// The text files under the given paths (relative to the root), without build output.
    static func files(under paths: [String]) throws -> [String] {
        var out: [String] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: DeployFiles.path(path), isDirectory: &isDirectory) else { continue }
            guard isDirectory.boolValue else { out.append(path); continue }
            for case let child as String in manager.enumerator(atPath: DeployFiles.path(path)) ?? NSEnumerator()
            where !child.contains(".build") && !child.hasPrefix("Fuzz/Corpus") {
                var isDir: ObjCBool = false
                let full = path + "/" + child
                if manager.fileExists(atPath: DeployFiles.path(full), isDirectory: &isDir), !isDir.boolValue,
                    let data = manager.contents(atPath: DeployFiles.path(full)), String(data: data, encoding: .utf8) != nil
                {
                    out.append(full)
                }
            }
        }
        return out
    }
}
