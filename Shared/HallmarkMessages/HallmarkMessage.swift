/// A whole Hallmark message, envelope and body (``Message``), with a JSON Schema of the same
/// name in `proto-json/` (see ``MessageSchemas``).
public protocol HallmarkMessage: Codable, Sendable {
    /// The schema name, e.g. `hallmark.sign.request.v1`.
    static var schemaName: String { get }
    /// The idempotency key.
    var id: MessageID { get }
}

/// Every message body, one per schema in `proto-json/` (a test holds the two lists equal).
public enum MessageTypes {
    public static let all: [any MessageBody.Type] = [
        AdminCommand.self, BenchMessage.self, MetricsSnapshot.self, ProbeRequest.self, ProbeResult.self, ProvisionRequest.self,
        ProvisionResult.self, RejectedRecord.self, SecurityEvent.self, SignRequest.self, SignResult.self,
        TokenRequest.self, TokenResult.self, TokenRequestBatch.self, TokenResultBatch.self, DeviceRequest.self,
        DeviceResult.self, VerifyRequest.self,
        VerifyResult.self,
        // gateway
        EncryptRequest.self, EncryptResult.self, DecryptRequest.self, DecryptResult.self, E2EEHandshake.self,
        E2EEHandshakeResult.self, E2EEClose.self, E2EEInbound.self, E2EEPlaintext.self, E2EEOutboundRequest.self,
        E2EEOutbound.self,
        // aggregator
        Submission.self, SubmissionResult.self, Checkpoint.self, LogVerifyRequest.self, LogVerifyResult.self,
        ModificationClaim.self, ModificationResult.self,
        // every service
        PrivacyRequest.self, PrivacyResult.self, AuditRecord.self,
    ]
}
