import Foundation
import Testing

/// The KEDA ScaledObjects in deploy/k8s, against KEDA's documented ScaledObject specification
/// (keda.sh/docs/2.15/reference/scaledobject-spec) and its Apache Kafka scaler
/// (keda.sh/docs/2.15/scalers/apache-kafka): no field KEDA does not know, every value of the
/// type KEDA reads, and one trigger per consumer group of the Deployment it scales.
@Suite(.timeLimit(.minutes(1)))
struct KEDATests {
    let manifests: KubernetesManifests
    init() throws { manifests = try KubernetesManifests() }

    static let specFields: Set<String> = [
        "scaleTargetRef", "pollingInterval", "cooldownPeriod", "initialCooldownPeriod",
        "idleReplicaCount", "minReplicaCount", "maxReplicaCount", "fallback", "advanced",
        "triggers",
    ]
    static let scaleTargetFields: Set<String> = ["apiVersion", "kind", "name", "envSourceContainerName"]
    static let advancedFields: Set<String> = [
        "restoreToOriginalReplicaCount", "horizontalPodAutoscalerConfig", "scalingModifiers",
    ]
    static let hpaConfigFields: Set<String> = ["name", "behavior"]
    static let triggerFields: Set<String> = ["type", "metadata", "name", "useCachedMetrics", "authenticationRef", "metricType"]
    static let kafkaMetadata: Set<String> = [
        "bootstrapServers", "consumerGroup", "topic", "lagThreshold", "activationLagThreshold",
        "offsetResetPolicy", "allowIdleConsumers", "scaleToZeroOnInvalidOffset",
        "excludePersistentLag", "limitToPartitionsWithLag", "version", "partitionLimitation",
        "sasl", "saslTokenProvider", "tls", "unsafeSsl", "awsRegion",
    ]

    @Test func scaledObjectsUseOnlyDocumentedFields() throws {
        let objects = manifests.all("ScaledObject")
        #expect(!objects.isEmpty)
        for object in objects {
            let name = object.name
            #expect(object.object.string("apiVersion") == "keda.sh/v1alpha1", "\(name)")
            #expect(
                Set(object.spec.keys).isSubset(of: Self.specFields),
                "\(name): \(Set(object.spec.keys).subtracting(Self.specFields))")
            let target = object.spec.map("scaleTargetRef") ?? [:]
            #expect(Set(target.keys).isSubset(of: Self.scaleTargetFields) && target.string("name") != nil, "\(name): \(target)")
            if let advanced = object.spec.map("advanced") {
                #expect(Set(advanced.keys).isSubset(of: Self.advancedFields), "\(name)")
                if let hpa = advanced.map("horizontalPodAutoscalerConfig") {
                    #expect(Set(hpa.keys).isSubset(of: Self.hpaConfigFields), "\(name)")
                }
            }
            for field in ["pollingInterval", "cooldownPeriod", "minReplicaCount", "maxReplicaCount"] {
                #expect((object.spec.int(field) ?? 0) > 0, "\(name): \(field) must be a positive integer")
            }
            let minimum = object.spec.int("minReplicaCount") ?? 0, maximum = object.spec.int("maxReplicaCount") ?? 0
            // minReplicaCount 0 lets KEDA scale a group away and then miss its topics (the Kafka
            // scaler's documented edge case); Hallmark keeps at least one replica of every stage.
            #expect(minimum >= 1 && minimum <= maximum, "\(name): \(minimum)...\(maximum)")
            if let idle = object.spec.int("idleReplicaCount") { #expect(idle < minimum, "\(name)") }

            let triggers = object.spec.maps("triggers")
            #expect(!triggers.isEmpty, "\(name)")
            for trigger in triggers {
                #expect(Set(trigger.keys).isSubset(of: Self.triggerFields), "\(name): \(trigger.keys)")
                #expect(trigger.string("type") == "kafka", "\(name)")
                let metadata = trigger.map("metadata") ?? [:]
                #expect(
                    Set(metadata.keys).isSubset(of: Self.kafkaMetadata),
                    "\(name): \(Set(metadata.keys).subtracting(Self.kafkaMetadata))")
                // KEDA's trigger metadata is a map of strings: `lagThreshold: 200` is refused.
                #expect(metadata.values.allSatisfy { $0 is String }, "\(name): every metadata value must be a string")
                #expect(metadata.string("bootstrapServers")?.isEmpty == false, "\(name)")
                let threshold = metadata.string("lagThreshold").flatMap { Int($0) } ?? 0
                #expect(threshold > 0, "\(name): lagThreshold must be a positive integer")
                // The services start a new group at the earliest offset (RDKafkaConsumer), so KEDA
                // must count lag the same way.
                #expect(metadata.string("offsetResetPolicy") == "earliest", "\(name)")
            }
        }
    }

    /// KEDA refuses a second ScaledObject on one target, so each Deployment has one, with a
    /// trigger (and its own lag threshold) for each consumer group its stages join.
    @Test func oneScaledObjectPerDeploymentWithATriggerPerConsumerGroup() throws {
        let deployments = Set(manifests.all("Deployment").map(\.name))
        var targets: [String] = []
        for object in manifests.all("ScaledObject") {
            let target = try #require(object.spec.map("scaleTargetRef")?.string("name"))
            #expect(deployments.contains(target), "\(object.name) scales \(target), which is not a Deployment here")
            targets.append(target)
            let triggers = object.spec.maps("triggers")
            let groups = triggers.compactMap { $0.map("metadata")?.string("consumerGroup") }
            #expect(groups.count == Set(groups).count, "\(object.name): a group twice")
            #expect(Set(groups) == KubernetesManifests.consumerGroups[target], "\(object.name): \(groups)")
            let names = triggers.compactMap { $0.string("name") }
            #expect(names.count == triggers.count && Set(names).count == names.count, "\(object.name): trigger names")
        }
        #expect(targets.count == Set(targets).count, "two ScaledObjects on one Deployment: \(targets)")
        // Not the single writer, not the edge (CPU), not the bridge (one replica serves it all).
        #expect(Set(targets) == deployments.subtracting(["hallmark-aggregator", "hallmark-edge", "hallmark-metrics"]))
    }

    /// The log writer is a single writer: one leader and one standby, never scaled on lag.
    @Test func theAggregatorRunsALeaderAndAStandbyAndIsNeverScaledOnLag() throws {
        let targets = manifests.all("ScaledObject").compactMap { $0.spec.map("scaleTargetRef")?.string("name") }
        #expect(!targets.contains("hallmark-aggregator"))
        let aggregator = try #require(manifests.all("Deployment").first { $0.name == "hallmark-aggregator" })
        #expect(aggregator.spec.int("replicas") == 2)
        // A rolling update replaces a pod without starting a third replica.
        #expect(aggregator.spec.at("strategy", "rollingUpdate")?.int("maxSurge") == 0)
        let budget = try #require(manifests.all("PodDisruptionBudget").first { $0.name == "hallmark-aggregator" })
        #expect(budget.spec.int("minAvailable") == 1)
    }

    /// The edge serves HTTP: it scales on CPU with an HPA (never on lag), keeps two replicas at
    /// least, rolls without losing capacity, and its Service routes to its named port.
    @Test func theEdgeScalesOnCPUBehindItsService() throws {
        let hpa = try #require(manifests.all("HorizontalPodAutoscaler").first { $0.name == "hallmark-edge" })
        #expect(hpa.spec.map("scaleTargetRef")?.string("name") == "hallmark-edge")
        #expect(
            (hpa.spec.int("minReplicas") ?? 0) >= 2 && (hpa.spec.int("maxReplicas") ?? 0) > (hpa.spec.int("minReplicas") ?? 0))
        let metric = try #require(hpa.spec.maps("metrics").first)
        #expect(metric.at("resource")?.string("name") == "cpu")
        let edge = try #require(manifests.all("Deployment").first { $0.name == "hallmark-edge" })
        #expect(edge.spec.at("strategy", "rollingUpdate")?.int("maxUnavailable") == 0)
        let service = try #require(manifests.all("Service").first { $0.name == "hallmark-edge" })
        #expect(service.spec.at("selector") as? [String: String] == ["app.kubernetes.io/name": "hallmark-edge"])
        #expect(service.spec.maps("ports").first?.string("targetPort") == "http")
        let container = try #require((edge.spec.at("template", "spec") ?? [:]).maps("containers").first)
        #expect(container.maps("ports").first?.int("containerPort") == 8545)
    }

    /// docs/operations.md gives each consumer group's lag threshold, the same as the manifests.
    @Test func lagThresholdsAreDocumented() throws {
        let operations = try DeployFiles.text("docs/operations.md")
        for object in manifests.all("ScaledObject") {
            for trigger in object.spec.maps("triggers") {
                let group = try #require(trigger.map("metadata")?.string("consumerGroup"))
                let threshold = try #require(trigger.map("metadata")?.string("lagThreshold"))
                let documented = operations.split(separator: "\n").contains { line in
                    line.hasPrefix("| `\(group)` ") && line.contains("| \(threshold) |")
                }
                #expect(documented, "docs/operations.md has no row `| `\(group)` … | \(threshold) |`")
            }
        }
    }
}
