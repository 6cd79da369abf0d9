/// Every topic Hallmark uses, declared once: its default name, the schemas its messages
/// carry (the `proto-json/` ids this module embeds), its Kafka key and the services that
/// produce and consume it. The services' topic settings take their defaults from here, and
/// docs/operations.md's topic table is checked against it.
///
/// Services are named as they run (`signer`, `gateway`, `authority`, `aggregator`, `edge`),
/// `hallmark` is the CLI, `probe` and `probe-ask` its reference stages, and `clients` the
/// systems outside Hallmark that ask it.
public enum TopicCatalogue {
    /// One topic.
    public struct Topic: Sendable, Hashable {
        /// The default name (each service's variable may rename it).
        public let name: String
        /// The schema ids its messages carry.
        public let schemas: [String]
        /// What its messages are keyed by.
        public let key: String
        /// Who writes it.
        public let producers: [String]
        /// Who reads it.
        public let consumers: [String]

        init(_ name: String, schemas: [String], key: String, producers: [String], consumers: [String]) {
            self.name = name
            self.schemas = schemas
            self.key = key
            self.producers = producers
            self.consumers = consumers
        }
    }

    public static let rejected = Topic(
        "hallmark.rejected", schemas: [RejectedRecord.schemaName], key: "the rejected input's own key",
        producers: ["signer", "gateway", "authority", "aggregator"], consumers: ["hallmark"])
    public static let metrics = Topic(
        "hallmark.metrics", schemas: [MetricsSnapshot.schemaName], key: "the instance name",
        producers: ["signer", "gateway", "authority", "aggregator", "edge"], consumers: ["hallmark", "edge"])
    public static let security = Topic(
        "hallmark.security", schemas: [SecurityEvent.schemaName], key: "the partner id, device serial or none",
        producers: ["signer", "gateway", "authority", "aggregator"], consumers: ["hallmark", "edge"])
    public static let audit = Topic(
        "hallmark.audit", schemas: [AuditRecord.schemaName], key: "the service name",
        producers: ["signer", "gateway", "authority", "aggregator"], consumers: ["hallmark"])
    public static let privacyRequests = Topic(
        "hallmark.privacy.requests", schemas: [PrivacyRequest.schemaName], key: "the subject",
        producers: ["hallmark"], consumers: ["signer", "gateway", "authority"])
    public static let privacyResults = Topic(
        "hallmark.privacy.results", schemas: [PrivacyResult.schemaName], key: "the request's correlation id",
        producers: ["signer", "gateway", "authority"], consumers: ["hallmark"])
    public static let signRequests = Topic(
        "smileid.sign.requests", schemas: [SignRequest.schemaName], key: "partner id",
        producers: ["clients"], consumers: ["signer"])
    public static let signResults = Topic(
        "smileid.sign.results", schemas: [SignResult.schemaName], key: "partner id",
        producers: ["signer"], consumers: ["clients"])
    public static let verifyRequests = Topic(
        "smileid.verify.requests", schemas: [VerifyRequest.schemaName, SignResult.schemaName], key: "partner id",
        producers: ["clients"], consumers: ["signer"])
    public static let verifyResults = Topic(
        "smileid.verify.results", schemas: [VerifyResult.schemaName], key: "partner id",
        producers: ["signer"], consumers: ["clients"])
    public static let encryptRequests = Topic(
        "smileid.encrypt.requests", schemas: [EncryptRequest.schemaName], key: "partner id",
        producers: ["clients"], consumers: ["gateway"])
    public static let encryptResults = Topic(
        "smileid.encrypt.results", schemas: [EncryptResult.schemaName], key: "partner id",
        producers: ["gateway"], consumers: ["clients"])
    public static let decryptRequests = Topic(
        "smileid.decrypt.requests", schemas: [DecryptRequest.schemaName], key: "partner id",
        producers: ["clients"], consumers: ["gateway"])
    public static let decryptResults = Topic(
        "smileid.decrypt.results", schemas: [DecryptResult.schemaName], key: "partner id",
        producers: ["gateway"], consumers: ["clients"])
    public static let handshakes = Topic(
        "e2ee.handshakes", schemas: [E2EEHandshake.schemaName, E2EEClose.schemaName], key: "session id",
        producers: ["clients"], consumers: ["gateway"])
    public static let handshakeResults = Topic(
        "e2ee.handshake.results", schemas: [E2EEHandshakeResult.schemaName], key: "session id",
        producers: ["gateway"], consumers: ["clients"])
    public static let inbound = Topic(
        "e2ee.inbound", schemas: [E2EEInbound.schemaName], key: "session id",
        producers: ["clients"], consumers: ["gateway"])
    public static let plaintext = Topic(
        "e2ee.plaintext", schemas: [E2EEPlaintext.schemaName], key: "session id",
        producers: ["gateway"], consumers: ["clients"])
    public static let outboundRequests = Topic(
        "e2ee.outbound.requests", schemas: [E2EEOutboundRequest.schemaName], key: "session id",
        producers: ["clients"], consumers: ["gateway"])
    public static let outbound = Topic(
        "e2ee.outbound", schemas: [E2EEOutbound.schemaName], key: "session id",
        producers: ["gateway"], consumers: ["clients"])
    public static let provisionRequests = Topic(
        "birthmark.provision.requests", schemas: [ProvisionRequest.schemaName], key: "device serial",
        producers: ["hallmark"], consumers: ["authority"])
    public static let provisionResults = Topic(
        "birthmark.provision.results", schemas: [ProvisionResult.schemaName], key: "device serial",
        producers: ["authority"], consumers: ["hallmark"])
    public static let authorityAdmin = Topic(
        "birthmark.authority.admin", schemas: [AdminCommand.schemaName], key: "device serial",
        producers: ["hallmark"], consumers: ["authority"])
    public static let tokenRequests = Topic(
        "birthmark.token.requests", schemas: [TokenRequest.schemaName, DeviceRequest.schemaName, TokenRequestBatch.schemaName],
        key: "correlation id (a carrier: its id)",
        producers: ["aggregator"], consumers: ["authority"])
    public static let tokenResults = Topic(
        "birthmark.token.results", schemas: [TokenResult.schemaName, DeviceResult.schemaName, TokenResultBatch.schemaName],
        key: "correlation id (a carrier: its request's id)",
        producers: ["authority"], consumers: ["aggregator"])
    public static let submissions = Topic(
        "birthmark.submissions", schemas: [Submission.schemaName], key: "submission id",
        producers: ["edge", "hallmark"], consumers: ["aggregator"])
    public static let submissionResults = Topic(
        "birthmark.submission.results", schemas: [SubmissionResult.schemaName], key: "submission id",
        producers: ["aggregator"], consumers: ["edge", "hallmark"])
    public static let checkpoints = Topic(
        "birthmark.checkpoints", schemas: [Checkpoint.schemaName], key: "`checkpoint`",
        producers: ["aggregator"], consumers: ["edge", "hallmark"])
    public static let logVerifyRequests = Topic(
        "birthmark.verify.requests", schemas: [LogVerifyRequest.schemaName], key: "any",
        producers: ["edge", "hallmark"], consumers: ["aggregator"])
    public static let logVerifyResults = Topic(
        "birthmark.verify.results", schemas: [LogVerifyResult.schemaName], key: "the request's key",
        producers: ["aggregator"], consumers: ["edge", "hallmark"])
    public static let modifications = Topic(
        "birthmark.modifications", schemas: [ModificationClaim.schemaName], key: "the final image hash",
        producers: ["edge", "hallmark"], consumers: ["aggregator"])
    public static let modificationResults = Topic(
        "birthmark.modification.results", schemas: [ModificationResult.schemaName], key: "the claim's key",
        producers: ["aggregator"], consumers: ["edge", "hallmark"])

    public static let probeRequests = Topic(
        "hallmark.probe.requests", schemas: [ProbeRequest.schemaName], key: "any",
        producers: ["hallmark", "probe-ask"], consumers: ["probe"])
    public static let probeResults = Topic(
        "hallmark.probe.results", schemas: [ProbeResult.schemaName], key: "the request's key", producers: ["probe"],
        consumers: ["hallmark"])
    public static let probeAsks = Topic(
        "hallmark.probe.asks", schemas: [ProbeRequest.schemaName], key: "any", producers: ["hallmark"],
        consumers: ["probe-ask"])
    public static let probeReplies = Topic(
        "hallmark.probe.replies", schemas: [ProbeResult.schemaName], key: "the request's key", producers: ["probe"],
        consumers: ["probe-ask"])
    public static let probeAnswers = Topic(
        "hallmark.probe.answers", schemas: [ProbeResult.schemaName], key: "the ask's key", producers: ["probe-ask"],
        consumers: ["hallmark"])
    /// Every topic, in docs/operations.md's order.
    public static let all: [Topic] = [
        rejected,
        metrics,
        security,
        audit,
        privacyRequests,
        privacyResults,
        signRequests,
        signResults,
        verifyRequests,
        verifyResults,
        encryptRequests,
        encryptResults,
        decryptRequests,
        decryptResults,
        handshakes,
        handshakeResults,
        inbound,
        plaintext,
        outboundRequests,
        outbound,
        provisionRequests,
        provisionResults,
        authorityAdmin,
        tokenRequests,
        tokenResults,
        submissions,
        submissionResults,
        checkpoints,
        logVerifyRequests,
        logVerifyResults,
        modifications,
        modificationResults,
        probeRequests,
        probeResults,
        probeAsks,
        probeReplies,
        probeAnswers,
    ]
}
