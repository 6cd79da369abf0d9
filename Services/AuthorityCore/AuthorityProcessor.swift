import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// The authority's transactional stage: provisioning requests and admin commands, each in
/// its message's transaction (``StageUnitOfWork/perMessage``), which also records it in the
/// inbox: a redelivered provisioning request gets its first answer again, never a second
/// device. Token validation is ``TokenProcessor``.
///
/// Admin commands are verified in phase 1 (``AdminCommandVerifier``: signature, operator key,
/// time window) and acted on in phase 2; a refused one is rejected there with a security
/// event, so the inbox records both and a redelivery repeats neither.
package struct AuthorityProcessor: TransactionalStageProcessor {
    /// A message after phase 1.
    package enum Prepared: Sendable {
        /// A provisioning request (all its work is in phase 2).
        case provision(StageMessage)
        /// An admin command whose signature, key and time verified.
        case admin(StageMessage, AdminCommand, keyID: String)
        /// An admin command refused in phase 1.
        case refused(StageMessage, AdminCommandVerifier.Refusal)
    }

    let configuration: AuthorityConfiguration
    let secrets: AuthoritySecrets
    let tables: KeyTableStore
    let devices: DeviceDirectory
    let metrics: AuthorityMetrics
    let maintenance: AuthorityMaintenance?
    let events: AuthorityEvents
    let verifier: AdminCommandVerifier
    /// Where admin commands are recorded.
    let audit: AuditTrail
    /// The manufacturer CA, for cameras that provision with a signing key.
    let certificates: DeviceCertificateIssuer

    /// Creates the processor.
    package init(
        configuration: AuthorityConfiguration, secrets: AuthoritySecrets, tables: KeyTableStore,
        devices: DeviceDirectory, metrics: AuthorityMetrics, maintenance: AuthorityMaintenance?,
        instance: String
    ) {
        self.configuration = configuration
        self.secrets = secrets
        self.tables = tables
        self.devices = devices
        self.metrics = metrics
        self.maintenance = maintenance
        events = AuthorityEvents(
            topic: configuration.securityTopic, instance: instance, metrics: metrics,
            secrets: secrets)
        verifier = AdminCommandVerifier(keys: configuration.operatorKeys, windowSeconds: configuration.adminWindowSeconds)
        audit = configuration.auditTrail(secrets)
        certificates = DeviceCertificateIssuer(configuration, secrets: secrets)
    }

    var schema: String { configuration.schema }

    /// The stage's inputs.
    package var inputs: [StageInput] {
        [
            StageInput(topic: configuration.provisionInput, schemas: [ProvisionRequest.schemaName]),
            StageInput(topic: configuration.adminInput, schemas: [AdminCommand.schemaName]),
        ]
    }

    /// Phase 1: an admin command's signature, key and time window.
    package func prepare(_ message: StageMessage, context: StageContext) async throws -> Prepared {
        guard message.header.schema == AdminCommand.schemaName else { return .provision(message) }
        do {
            let (command, keyID) = try verifier.verify(message)
            return .admin(message, command, keyID: keyID)
        } catch let refusal as AdminCommandVerifier.Refusal {
            return .refused(message, refusal)
        }
    }

    package func commit(_ batch: [Prepared], in transaction: StageTransaction) async throws -> [StageVerdict] {
        let connection = transaction.connection
        var verdicts: [StageVerdict] = []
        for item in batch {
            switch item {
            case .provision(let message): verdicts.append(.outputs(try await provision(message, connection: connection)))
            case .admin(let message, let command, let keyID):
                verdicts.append(try await administer(message, command, keyID: keyID, connection: connection))
            case .refused(let message, let refusal): verdicts.append(.rejected(try refuse(message, refusal)))
            }
        }
        return verdicts
    }

    /// A provisioning request that breaks its schema gets a `malformed` answer on the
    /// provisioning result topic; an admin command that does is rejected with a security event.
    package func answer(invalid message: StageMessage, violation: SchemaViolation) throws -> [StageOutput]? {
        if message.header.schema == AdminCommand.schemaName {
            throw try refuse(
                message,
                .init(
                    reason: .schemaViolation, detail: violation.description, severity: .warning,
                    keyID: nil))
        }
        guard message.header.schema == ProvisionRequest.schemaName else { return nil }
        let serial = message.fields["device_serial"]?.string.flatMap { ProvisionRequest.isValidSerial($0) ? $0 : nil }
        let result = ProvisionResult(deviceSerial: serial, status: .rejected, reason: .malformed)
        metrics.record(result)
        return [
            try message.reply(result, id: Self.resultID(message), or: configuration.provisionOutput, key: serial ?? message.key)
        ]
    }

    func securityOutput(
        _ message: StageMessage, _ event: SecurityEvent.Kind, _ severity: SecurityEvent.Severity,
        reason: String? = nil, serial: String? = nil, tableId: Int? = nil,
        keyID: String? = nil
    ) throws -> StageOutput {
        try events.output(for: message, event, severity, reason: reason, serial: serial, tableId: tableId, keyID: keyID)
    }
}
