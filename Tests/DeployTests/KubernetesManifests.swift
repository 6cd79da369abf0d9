import Foundation

/// `deploy/k8s`: the base's resources, parsed, and what the example overlay generates.
struct KubernetesManifests {
    struct Resource {
        let file: String
        let object: [String: Any]
        var kind: String { object.string("kind") ?? "" }
        var name: String { object.map("metadata")?.string("name") ?? "" }
        var spec: [String: Any] { object.map("spec") ?? [:] }
    }

    /// The base's resource files, as its kustomization.yaml lists them.
    let files: [String]
    let resources: [Resource]
    /// The example overlay's kustomization.yaml.
    let overlay: [String: Any]

    init() throws {
        let kustomization = try DeployFiles.documents(yaml: DeployFiles.text("deploy/k8s/base/kustomization.yaml"))
        files = kustomization.first?.list("resources").compactMap { $0 as? String } ?? []
        var resources: [Resource] = []
        for file in files {
            for object in try DeployFiles.documents(yaml: DeployFiles.text("deploy/k8s/base/" + file)) {
                resources.append(Resource(file: file, object: object))
            }
        }
        self.resources = resources
        overlay = try DeployFiles.documents(yaml: DeployFiles.text("deploy/k8s/overlays/example/kustomization.yaml")).first ?? [:]
    }

    func all(_ kind: String) -> [Resource] { resources.filter { $0.kind == kind } }

    /// The Secrets the example overlay generates.
    var generatedSecrets: Set<String> { Set(overlay.maps("secretGenerator").compactMap { $0.string("name") }) }

    /// The Hallmark services with a Deployment each, and the consumer groups each one's stages
    /// join: `hallmark-<service>` plus the suffixes the services add (StageConfiguration,
    /// GatewayService, AuthorityService, AggregatorService; docs/operations.md §1).
    static let consumerGroups: [String: Set<String>] = [
        "hallmark-signer": ["hallmark-signer", "hallmark-signer-verify"],
        "hallmark-gateway": ["hallmark-gateway", "hallmark-gateway-sessions"],
        "hallmark-authority": ["hallmark-authority", "hallmark-authority-tokens"],
        "hallmark-aggregator": ["hallmark-aggregator", "hallmark-aggregator-tokens", "hallmark-aggregator-verify"],
        "hallmark-edge": ["hallmark-edge-receipts"],
        // The Prometheus bridge reads under a group of its own that never commits.
        "hallmark-metrics": [],
    ]
}
