import Foundation
import Testing

/// deploy/compose, as `podman-compose config` resolves it (anchors, merges, the local override).
@Suite(.timeLimit(.minutes(2)))
struct ComposeTests {
    static let hallmarkServices: Set<String> = ["signer", "gateway", "authority", "aggregator", "edge", "metrics"]
    /// The Prometheus bridge reads Kafka alone: no PostgreSQL, no secrets, and (publishing no
    /// metrics of its own) no instance name.
    static let kafkaOnly: Set<String> = ["metrics"]

    private func config(_ files: [String]) async throws -> [String: Any] {
        let arguments = files.flatMap { ["-f", DeployFiles.path("deploy/compose/" + $0)] } + ["config"]
        let result = try await DeployFiles.run(
            DeployFiles.venvTool("podman-compose"), arguments, in: DeployFiles.path("deploy/compose"))
        try #require(result.status == 0, "podman-compose config failed:\n\(result.output)")
        // podman-compose may log before the document; the document starts at `name:` or `services:`.
        let start = result.output.range(of: "\nname:")?.lowerBound ?? result.output.range(of: "name:")?.lowerBound
        let document = try DeployFiles.documents(yaml: String(result.output[(start ?? result.output.startIndex)...]))
        return try #require(document.first)
    }

    @Test func theWholeSystemResolves() async throws {
        let resolved = try await config(["compose.yaml"])
        let services = resolved.map("services") ?? [:]
        #expect(
            Set(services.keys)
                == Self.hallmarkServices.union(["kafka", "kafka-topics", "postgres", "authority-tables", "authority-ca"]))
        // The public images a user pulls.
        #expect(services.at("kafka")?.string("image")?.hasPrefix("docker.io/apache/kafka:") == true)
        #expect(services.at("postgres")?.string("image")?.hasPrefix("docker.io/library/postgres:") == true)
        let declaredSecrets = Set((resolved.map("secrets") ?? [:]).keys)
        var instances: Set<String> = []
        for name in Self.hallmarkServices {
            let service = try #require(services.map(name), "\(name)")
            #expect(service.string("image")?.hasSuffix("/\(name):dev") == true, "\(name): \(service["image"] ?? "")")
            #expect(service.bool("read_only") == true, "\(name)")
            #expect(service.string("stop_signal") == "SIGTERM" && service.string("stop_grace_period") != nil, "\(name)")
            let dependencies = service.map("depends_on") ?? [:]
            #expect(dependencies.at("kafka-topics")?.string("condition") == "service_completed_successfully", "\(name)")
            let secrets = service.list("secrets").compactMap { ($0 as? String) ?? ($0 as? [String: Any])?.string("source") }
            #expect(Set(secrets).isSubset(of: declaredSecrets), "\(name): \(secrets)")
            let mounted =
                secrets.map { "/run/secrets/" + $0 }
                + service.list("volumes").compactMap { ($0 as? String)?.split(separator: ":").dropFirst().first.map(String.init) }
            let environment = service.map("environment") ?? [:]
            if Self.kafkaOnly.contains(name) {
                #expect(Set(dependencies.keys) == ["kafka-topics"], "\(name) waits for \(dependencies.keys.sorted())")
                #expect(mounted.isEmpty, "\(name) mounts \(mounted)")
                #expect(!environment.keys.contains { $0.hasSuffix("_POSTGRES_URL") || $0 == "HALLMARK_INSTANCE" }, "\(name)")
            } else {
                #expect(dependencies.at("postgres")?.string("condition") == "service_healthy", "\(name)")
                instances.insert(environment.string("HALLMARK_INSTANCE") ?? "")
            }
            #expect(environment.string("HALLMARK_KAFKA_BROKERS") == "kafka:9092", "\(name)")
            for (key, value) in environment {
                guard let value = value as? String else { continue }
                if DeployFiles.publicFiles.contains(key) {
                    // Certificates, no secret: in a volume mounted read-only.
                    let volumes: [[Substring]] = service.list("volumes").compactMap { ($0 as? String)?.split(separator: ":") }
                    let readOnly: [String] = volumes.filter { $0.count == 3 && $0[2] == "ro" }.map { String($0[1]) + "/" }
                    #expect(readOnly.contains { value.hasPrefix($0) }, "\(name): \(key)=\(value) is not on a read-only volume")
                } else if key.hasSuffix("_FILE") || key.hasSuffix("_SECRETS_DIR") {
                    #expect(mounted.contains(value), "\(name): \(key)=\(value) is not a mounted secret")
                }
                if key.hasSuffix("_POSTGRES_URL") {
                    // Its own role, password from a mounted pgpass file, never in the URL.
                    #expect(
                        value.hasPrefix("postgresql://hallmark_\(name)@postgres:5432/hallmark?passfile="), "\(name): \(value)")
                    let passfile = value.components(separatedBy: "passfile=").last ?? ""
                    #expect(mounted.contains(passfile), "\(name): \(passfile) is not mounted")
                }
            }
        }
        #expect(instances.count == Self.hallmarkServices.subtracting(Self.kafkaOnly).count && !instances.contains(""))
    }

    /// compose.local.yaml swaps Kafka's and PostgreSQL's images for local ones and changes nothing else.
    @Test func theLocalOverrideSwapsOnlyImages() async throws {
        let base = try await config(["compose.yaml"]).map("services") ?? [:]
        let local = try await config(["compose.yaml", "compose.local.yaml"]).map("services") ?? [:]
        #expect(Set(base.keys) == Set(local.keys))
        for (name, value) in base {
            var before = value as? [String: Any] ?? [:], after = local.map(name) ?? [:]
            if ["kafka", "kafka-topics", "postgres"].contains(name) {
                #expect(after.string("image")?.hasPrefix("localhost/") == true, "\(name)")
                before["image"] = nil; after["image"] = nil
                if name == "kafka" {
                    // Tansu is not Kafka: its health check differs, and must replace the base
                    // file's (podman-compose appends a list given in an override to the base list).
                    #expect(after.at("healthcheck")?["test"] is String, "\(after["healthcheck"] ?? "")")
                    before["healthcheck"] = nil; after["healthcheck"] = nil
                }
            }
            #expect(try canonical(before) == canonical(after), "\(name) differs beyond its image")
        }
    }

    private func canonical(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// The topics compose creates are the local stack's (deploy/local/env.sh, DESIGN.md §2).
    @Test func composeCreatesTheLocalStacksTopics() throws {
        func words(between start: String, and end: String, in text: String) -> [String] {
            guard let from = text.range(of: start), let to = text.range(of: end, range: from.upperBound..<text.endIndex) else {
                return []
            }
            return text[from.upperBound..<to.lowerBound].split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        }
        let compose = words(between: "topics=\"", and: "\"", in: try DeployFiles.text("deploy/compose/topics.sh"))
        let local = words(between: "HALLMARK_TOPICS=(", and: ")", in: try DeployFiles.text("deploy/local/env.sh"))
        // DESIGN.md §2: every service's topics (editors' claims too), the shared ones, privacy and audit.
        #expect(compose.count == 32)
        #expect(compose == local)
    }
}
