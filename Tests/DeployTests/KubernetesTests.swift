import Foundation
import Testing

/// deploy/k8s against Kubernetes' own schemas (kubernetes-validate, strict) and against what
/// Hallmark's services need: non-root, read-only, bounded, probed, secrets as files.
@Suite(.timeLimit(.minutes(3)))
struct KubernetesTests {
    let manifests: KubernetesManifests
    init() throws { manifests = try KubernetesManifests() }

    @Test func baseValidatesStrictlyAgainstKubernetesSchemas() async throws {
        let files = manifests.files.map { DeployFiles.path("deploy/k8s/base/" + $0) }
        let result = try await DeployFiles.run(DeployFiles.venvTool("kubernetes-validate"), ["--strict"] + files)
        #expect(result.status == 0, "\(result.output)")
        for resource in manifests.resources where resource.kind != "ScaledObject" {
            #expect(
                result.output.contains("passed for resource \(resource.kind.lowercased())/\(resource.name)"),
                "\(resource.kind) \(resource.name) was not validated:\n\(result.output)")
        }
    }

    /// The validator is live: the same file with a wrong type and an unknown field fails.
    @Test func validatorRefusesABrokenDeployment() async throws {
        let original = try DeployFiles.text("deploy/k8s/base/signer.yaml")
        let broken = original.replacingOccurrences(of: "\n  replicas: 2\n", with: "\n  replicas: two\n  replicaz: 2\n")
        #expect(broken != original)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hallmark-broken-\(UUID()).yaml")
        try broken.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try await DeployFiles.run(DeployFiles.venvTool("kubernetes-validate"), ["--strict", file.path])
        #expect(result.status != 0, "\(result.output)")
    }

    @Test func kustomizationListsEveryFileAndTheOverlayEveryImage() throws {
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: DeployFiles.path("deploy/k8s/base"))
            .filter { $0.hasSuffix(".yaml") && $0 != "kustomization.yaml" }
        #expect(Set(manifests.files) == Set(onDisk))
        #expect(manifests.overlay.list("resources").compactMap { $0 as? String }.contains("../../base"))
        let images = Set(manifests.overlay.maps("images").compactMap { $0.string("name") })
        let used = Set(
            manifests.all("Deployment").flatMap { podSpec($0).maps("containers") + podSpec($0).maps("initContainers") }
                .compactMap { $0.string("image") })
        #expect(!used.isEmpty && used.isSubset(of: images), "images used \(used), overlay sets \(images)")
    }

    @Test func everyServiceHasAHardenedDeployment() throws {
        let deployments = manifests.all("Deployment")
        #expect(Set(deployments.map(\.name)) == Set(KubernetesManifests.consumerGroups.keys))
        for deployment in deployments {
            let name = deployment.name
            let pod = podSpec(deployment)
            #expect(pod.bool("automountServiceAccountToken") == false, "\(name)")
            let security = pod.map("securityContext") ?? [:]
            #expect(security.bool("runAsNonRoot") == true && security.int("runAsUser") == 10001, "\(name)")
            // SIGTERM handling needs HALLMARK_SHUTDOWN_GRACE_MS (20 s) plus flush and commit.
            #expect((pod.int("terminationGracePeriodSeconds") ?? 0) >= 30, "\(name)")
            let containers = pod.maps("containers") + pod.maps("initContainers")
            for container in containers {
                let label = "\(name)/\(container.string("name") ?? "?")"
                let context = container.map("securityContext") ?? [:]
                #expect(context.bool("readOnlyRootFilesystem") == true, "\(label)")
                #expect(context.bool("allowPrivilegeEscalation") == false, "\(label)")
                #expect(context.at("capabilities")?.list("drop").contains { ($0 as? String) == "ALL" } == true, "\(label)")
                for bound in ["requests", "limits"] {
                    let values = container.at("resources", bound) ?? [:]
                    #expect(values["cpu"] != nil && values["memory"] != nil, "\(label) \(bound)")
                }
                // Secrets reach a service as files, never as environment values.
                for variable in container.maps("env") {
                    #expect(variable.at("valueFrom", "secretKeyRef") == nil, "\(label) \(variable.string("name") ?? "")")
                }
            }
            let main = try #require(pod.maps("containers").first)
            let executable = name  // hallmark-<service>: the image's entrypoint and health check argument
            // The bridge keeps no health file: both its probes are GET /health.
            if name == "hallmark-metrics" {
                for probe in ["livenessProbe", "readinessProbe"] {
                    #expect(main.at(probe, "httpGet")?.string("path") == "/health", "\(name) \(probe)")
                }
                continue
            }
            // The edge is ready when it hears answers (GET /ready); the others by their health file.
            let probes = name == "hallmark-edge" ? ["livenessProbe"] : ["livenessProbe", "readinessProbe"]
            for probe in probes {
                let command = main.at(probe, "exec")?.list("command").compactMap { $0 as? String } ?? []
                #expect(command == ["/usr/local/bin/hallmark-healthcheck", executable], "\(name) \(probe): \(command)")
            }
            if name == "hallmark-edge" {
                #expect(main.at("readinessProbe", "httpGet")?.string("path") == "/ready")
            }
        }
    }

    /// Every `…_FILE`/`…_DIR` setting names a path inside a mounted Secret the overlay generates,
    /// and the PostgreSQL URL's passfile is the copy the init container makes.
    @Test func secretsAreMountedFiles() throws {
        for deployment in manifests.all("Deployment") {
            let pod = podSpec(deployment)
            var secretVolumes: [String: String] = [:]
            for volume in pod.maps("volumes") {
                if let secret = volume.at("secret")?.string("secretName"), let name = volume.string("name") {
                    secretVolumes[name] = secret
                    #expect(manifests.generatedSecrets.contains(secret), "\(deployment.name): \(secret) is not generated")
                    #expect(
                        (volume.at("secret")?.int("defaultMode") ?? 0o777) & 0o007 == 0,
                        "\(deployment.name): \(secret) is world-readable")
                }
            }
            let main = try #require(pod.maps("containers").first)
            let secretMounts = main.maps("volumeMounts").filter { secretVolumes[$0.string("name") ?? ""] != nil }
            #expect(secretMounts.allSatisfy { $0.bool("readOnly") == true }, "\(deployment.name)")
            for variable in main.maps("env") {
                guard let name = variable.string("name"), let value = variable.string("value") else { continue }
                let inside = { (mounts: [[String: Any]]) in
                    mounts.contains {
                        value.hasPrefix(($0.string("mountPath") ?? "?") + "/") || value == $0.string("mountPath")
                    }
                }
                if DeployFiles.publicFiles.contains(name) {
                    // Certificates, no secret: a read-only volume (a ConfigMap) will do.
                    #expect(
                        inside(main.maps("volumeMounts").filter { $0.bool("readOnly") == true }),
                        "\(deployment.name): \(name)=\(value) is not on a read-only volume")
                } else if name.hasSuffix("_FILE") || name.hasSuffix("_SECRETS_DIR") {
                    #expect(inside(secretMounts), "\(deployment.name): \(name)=\(value) is not in a mounted Secret")
                } else if name.hasSuffix("_DIR") {
                    // A folder of data (the log's tiles): on a volume, never the read-only root.
                    #expect(inside(main.maps("volumeMounts")), "\(deployment.name): \(name)=\(value) is not on a volume")
                }
                if name.hasSuffix("_POSTGRES_URL") {
                    #expect(value.hasSuffix("?passfile=/run/hallmark/pgpass"), "\(deployment.name): \(name)")
                    let userInfo = value.components(separatedBy: "://").last?.components(separatedBy: "@").first ?? ""
                    #expect(!userInfo.contains(":") && !value.contains("password"), "\(deployment.name): a password in the URL")
                }
            }
        }
    }

    @Test func disruptionBudgetsAndTheNetworkPolicyCoverEveryPod() throws {
        let budgets = manifests.all("PodDisruptionBudget")
        let policies = manifests.all("NetworkPolicy")
        // hallmark-services denies every pod all ingress; hallmark-edge-http lets the edge serve
        // HTTP on its one port, hallmark-metrics-http the bridge its one, and they select nothing else.
        #expect(Set(policies.map(\.name)) == ["hallmark-services", "hallmark-edge-http", "hallmark-metrics-http"])
        let metrics = try #require(policies.first { $0.name == "hallmark-metrics-http" })
        #expect(
            metrics.spec.at("podSelector", "matchLabels") as? [String: String] == [
                "app.kubernetes.io/name": "hallmark-metrics"
            ])
        #expect(metrics.spec.maps("ingress").flatMap { $0.maps("ports") }.compactMap { $0.int("port") } == [9464])
        // Prometheus alone scrapes it: every rule says where from.
        #expect(metrics.spec.maps("ingress").allSatisfy { !$0.maps("from").isEmpty }, "hallmark-metrics-http lets anyone in")
        let policy = try #require(policies.first { $0.name == "hallmark-services" })
        #expect(policy.spec.list("ingress").isEmpty, "Hallmark's services serve nothing but the edge")
        let http = try #require(policies.first { $0.name == "hallmark-edge-http" })
        #expect(http.spec.at("podSelector", "matchLabels") as? [String: String] == ["app.kubernetes.io/name": "hallmark-edge"])
        let ports = http.spec.maps("ingress").flatMap { $0.maps("ports") }.compactMap { $0.int("port") }
        #expect(ports == [8545])
        #expect(Set(policy.spec.list("policyTypes").compactMap { $0 as? String }) == ["Ingress", "Egress"])
        let selected = policy.spec.at("podSelector", "matchLabels") ?? [:]
        for deployment in manifests.all("Deployment") {
            let labels = deployment.spec.at("template", "metadata", "labels") ?? [:]
            #expect(
                selected.allSatisfy { labels[$0.key] as? String == $0.value as? String },
                "\(deployment.name) is outside the policy")
            let selector = deployment.spec.at("selector", "matchLabels") as? [String: String]
            #expect(selector?.isEmpty == false, "\(deployment.name) has no selector")
            let budget = budgets.filter { $0.spec.at("selector", "matchLabels") as? [String: String] == selector }
            #expect(budget.count == 1, "\(deployment.name): \(budget.count) disruption budgets")
        }
    }

    /// The Prometheus bridge: one replica (two would serve the same series), Kafka alone (no
    /// secret, no database), its one port behind the Service that the optional ServiceMonitor
    /// (overlays/example/monitoring.yaml: it needs the Prometheus Operator's CRDs) selects.
    @Test func theBridgeServesPrometheusBehindItsService() throws {
        let bridge = try #require(manifests.all("Deployment").first { $0.name == "hallmark-metrics" })
        #expect(bridge.spec.int("replicas") == 1 && bridge.spec.at("strategy")?.string("type") == "Recreate")
        let pod = podSpec(bridge)
        #expect(pod.maps("initContainers").isEmpty && !pod.maps("volumes").contains { $0["secret"] != nil })
        let container = try #require(pod.maps("containers").first)
        #expect(!container.maps("env").contains { ($0.string("name") ?? "").hasSuffix("_POSTGRES_URL") })
        #expect(container.list("args").compactMap { $0 as? String } == ["--listen", ":9464"])
        let ports = container.maps("ports")
        #expect(ports.count == 1 && ports.first?.string("name") == "metrics" && ports.first?.int("containerPort") == 9464)
        for probe in ["livenessProbe", "readinessProbe"] {
            #expect(container.at(probe, "httpGet")?.string("port") == "metrics", "\(probe)")
        }
        let service = try #require(manifests.all("Service").first { $0.name == "hallmark-metrics" })
        #expect(service.spec.at("selector") as? [String: String] == ["app.kubernetes.io/name": "hallmark-metrics"])
        let port = try #require(service.spec.maps("ports").first)
        #expect(port.string("name") == "metrics" && port.int("port") == 9464 && port.string("targetPort") == "metrics")

        let documents = try DeployFiles.documents(yaml: DeployFiles.text("deploy/k8s/overlays/example/monitoring.yaml"))
        let monitor = try #require(documents.first)
        #expect(monitor.string("apiVersion") == "monitoring.coreos.com/v1" && monitor.string("kind") == "ServiceMonitor")
        let labels = service.object.at("metadata", "labels") ?? [:]
        let selector = monitor.at("spec", "selector", "matchLabels") as? [String: String] ?? [:]
        #expect(!selector.isEmpty && selector.allSatisfy { labels[$0.key] as? String == $0.value }, "\(selector)")
        let endpoint = try #require(monitor.at("spec")?.maps("endpoints").first)
        #expect(endpoint.string("port") == "metrics" && endpoint.string("interval") == "15s")
        #expect(endpoint.bool("honorLabels") == true, "the series' service and instance are the instances' own")
        // Optional: neither the base nor, as shipped, the overlay lists it.
        #expect(!manifests.resources.contains { $0.kind == "ServiceMonitor" })
        #expect(!manifests.overlay.list("resources").contains { ($0 as? String) == "monitoring.yaml" })
    }

    private func podSpec(_ deployment: KubernetesManifests.Resource) -> [String: Any] {
        deployment.spec.at("template", "spec") ?? [:]
    }
}
