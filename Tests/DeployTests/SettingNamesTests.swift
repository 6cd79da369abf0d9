import Foundation
import Testing

/// Every `HALLMARK_…` variable the docs, the README and the deployment files name is one the
/// code reads or the local scripts set: a renamed or removed setting cannot stay documented
/// (issue 31: a documented variable that no longer existed). Names the code assembles from a
/// prefix (`"\(prefix)_SCHEMA"`, `prefix + "KEK"`) count as read when a prefix literal and a
/// suffix fragment of the sources make them. Variables of the deployment tools themselves
/// (`${HALLMARK_TAG:-dev}` in compose, `$(HALLMARK_POSTGRES_HOST)` in a manifest) count as read
/// where they are expanded.
@Suite("Setting names", .timeLimit(.minutes(1)))
struct SettingNamesTests {
    /// Where variables are named for users.
    static let documents = ["README.md", "docs", "deploy/compose", "deploy/k8s", "deploy/containers"]
    /// Where they are read or set (compose's scripts too: compose.yaml itself is checked).
    static let sources = [
        "Services", "Shared", "Tests", "deploy/local", ".ci", "deploy/containers",
        "deploy/compose/make-secrets", "deploy/compose/topics.sh",
    ]
    /// Service names the runtime makes prefixes of (`HALLMARK_<SERVICE>_POSTGRES_URL`).
    static let services = ["SIGNER", "GATEWAY", "AUTHORITY", "AGGREGATOR", "PROBE", "EDGE"]

    @Test func everyNamedVariableIsReadOrSet() throws {
        let known = try Self.knownNames()
        var unknown: [String: Set<String>] = [:]
        let documents = try Self.files(under: Self.documents).map {
            ($0, try String(contentsOfFile: DeployFiles.path($0), encoding: .utf8))
        }
        // Set in one file (a ConfigMap), expanded in another (a Deployment).
        let expanded = Set(documents.flatMap { Self.matches(#"\$[({](HALLMARK_[A-Z0-9_]+)"#, in: $0.1) })
        for (file, text) in documents {
            for name in Self.names(in: text) where !known.contains(name) && !expanded.contains(name) {
                unknown[name, default: []].insert(file)
            }
        }
        #expect(
            unknown.isEmpty,
            "\(unknown.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value.sorted().joined(separator: ", ")))" })")
    }

    /// The check itself: a made-up name is not known, a literal and an assembled one are.
    @Test func theCheckTellsNamesApart() throws {
        let known = try Self.knownNames()
        #expect(!known.contains("HALLMARK_SIGNER_REPLAY_POOL_SIZE"))
        #expect(known.contains("HALLMARK_MAX_BATCH"))
        #expect(known.contains("HALLMARK_SIGNER_KEY_CACHE_SIZE"))
        #expect(known.contains("HALLMARK_GATEWAY_POSTGRES_URL"))
        #expect(known.contains("HALLMARK_SIGNER_EVENTS_PER_PARTNER"))
    }

    /// Full names in the sources, and every prefix literal joined to every suffix fragment.
    static func knownNames() throws -> Set<String> {
        var literals = Set<String>(), prefixes = Set(services.map { "HALLMARK_\($0)" }), suffixes = Set<String>()
        var middles = Set<String>(), tails = Set<String>()
        // Not this file: it names a made-up variable on purpose.
        for file in try files(under: sources) where !file.hasSuffix("SettingNamesTests.swift") {
            let text = try String(contentsOfFile: DeployFiles.path(file), encoding: .utf8)
            literals.formUnion(names(in: text))
            prefixes.formUnion(matches(#""(HALLMARK_[A-Z0-9_]*)""#, in: text))
            // `"\(prefix)_SCHEMA"`, `"\(prefix)ALERT_WINDOW_SECONDS"`, `prefix + "KEK_FILE"`.
            suffixes.formUnion(matches(#""\\\([A-Za-z.]+\)([A-Z0-9_]+)""#, in: text))
            suffixes.formUnion(matches(#"\+ "([A-Z0-9_]+)""#, in: text))
            // `"\(prefix)EVENTS_PER_\(subject)"` with `subject: "PARTNER"`.
            middles.formUnion(matches(#""\\\([A-Za-z.]+\)([A-Z0-9_]+)\\\("#, in: text))
            tails.formUnion(matches(#"subject: "([A-Z0-9_]+)""#, in: text))
        }
        for middle in middles { for tail in tails { suffixes.insert(middle + tail) } }
        var known = literals
        for prefix in prefixes {
            for suffix in suffixes {
                known.insert(prefix + suffix)
                if !prefix.hasSuffix("_") && !suffix.hasPrefix("_") { known.insert(prefix + "_" + suffix) }
            }
        }
        return known
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
