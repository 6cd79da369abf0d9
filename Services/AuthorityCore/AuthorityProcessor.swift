import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkPostgres
import HallmarkRuntime

/// The authority's transactional stage: provisioning requests and admin commands, each in
/// its message's transaction (``StageUnitOfWork/perMessage``), which also records it in the
/// inbox: a redelivered provisioning request gets its first answer again, never a second
/// device. Token validation is ``TokenProcessor``.
public struct AuthorityProcessor: StageProcessor {
    public typealias Prepared = StageMessage
    let configuration: AuthorityConfiguration
    let secrets: AuthoritySecrets
    let tables: KeyTableStore
    let devices: DeviceDirectory
    let metrics: AuthorityMetrics
    let maintenance: AuthorityMaintenance?
    let events: AuthorityEvents

    /// Creates the processor.
    public init(configuration: AuthorityConfiguration, secrets: AuthoritySecrets, tables: KeyTableStore,
                devices: DeviceDirectory, metrics: AuthorityMetrics, maintenance: AuthorityMaintenance?,
                instance: String) {
        self.configuration = configuration
        self.secrets = secrets
        self.tables = tables
        self.devices = devices
        self.metrics = metrics
        self.maintenance = maintenance
        events = AuthorityEvents(topic: configuration.securityTopic, instance: instance, metrics: metrics)
    }

    var schema: String { configuration.schema }

    /// The stage's inputs.
    public var inputs: [StageInput] {
        [StageInput(topic: configuration.provisionInput, schemas: [ProvisionRequest.schemaName]),
         StageInput(topic: configuration.adminInput, schemas: [AdminCommand.schemaName])]
    }

    public func commit(_ batch: [StageMessage], context: StageCommitContext) async throws -> [StageVerdict] {
        guard let connection = context.connection else {
            throw AuthorityError(.configuration, "the authority needs its database")
        }
        var verdicts: [StageVerdict] = []
        for message in batch {
            switch message.header.schema {
            case ProvisionRequest.schemaName: verdicts.append(.outputs(try await provision(message, connection: connection)))
            default: verdicts.append(try await administer(message, connection: connection))
            }
        }
        return verdicts
    }

    /// A provisioning request that breaks its schema gets a `malformed` answer on the
    /// provisioning result topic (an admin command goes to the rejected topic).
    public func answer(invalid message: StageMessage, violation: SchemaViolation) throws -> [StageOutput]? {
        guard message.header.schema == ProvisionRequest.schemaName else { return nil }
        let serial = message.fields["device_serial"]?.string.flatMap { ProvisionRequest.isValidSerial($0) ? $0 : nil }
        let result = ProvisionResult(id: MessageID.derived(from: message.header.id, "provision-result"),
                                     producedAt: Timestamp.now(), requestId: message.header.id,
                                     correlationId: message.correlationID, deviceSerial: serial, status: .rejected,
                                     reason: .malformed)
        metrics.record(result)
        return [try .json(topic: message.replyTopic(or: configuration.provisionOutput), key: serial ?? message.key, result)]
    }

    func securityOutput(_ message: StageMessage, _ event: SecurityEvent.Kind, _ severity: SecurityEvent.Severity,
                        reason: String? = nil, serial: String? = nil, tableId: Int? = nil) throws -> StageOutput {
        try events.output(for: message, event, severity, reason: reason, serial: serial, tableId: tableId)
    }
}
