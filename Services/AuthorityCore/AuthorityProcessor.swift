import Foundation
import HallmarkEnvelope
import HallmarkPostgres
import HallmarkRuntime

/// The authority's stage: provisioning requests, token validation requests and admin
/// commands, each in its message's transaction.
public struct AuthorityProcessor: StageProcessor {
    public let schemas: Set<String> = [ProvisionRequest.schema, TokenResult.requestSchema, AdminCommand.schema]
    let configuration: AuthorityConfiguration
    let secrets: AuthoritySecrets
    let tables: KeyTableStore
    let devices: DeviceDirectory
    let metrics: AuthorityMetrics
    let maintenance: AuthorityMaintenance?
    let counter: ValidationCounter
    let instance: String

    /// Creates the processor.
    public init(configuration: AuthorityConfiguration, secrets: AuthoritySecrets, tables: KeyTableStore,
                devices: DeviceDirectory, metrics: AuthorityMetrics, maintenance: AuthorityMaintenance?,
                counter: ValidationCounter, instance: String) {
        self.configuration = configuration
        self.secrets = secrets
        self.tables = tables
        self.devices = devices
        self.metrics = metrics
        self.maintenance = maintenance
        self.counter = counter
        self.instance = instance
    }

    var schema: String { configuration.schema }

    public func process(_ message: StageMessage, context: StageContext) async throws -> [StageOutput] {
        guard let connection = context.connection else {
            throw AuthorityError(.configuration, "the authority needs its database")
        }
        switch message.header.schema {
        case ProvisionRequest.schema: return try await provision(message, connection: connection)
        case AdminCommand.schema: return try await administer(message, connection: connection)
        default: return try await validate(message, connection: connection)
        }
    }

    /// The input's Kafka key, passed on to the answer.
    func key(of message: StageMessage) -> String? {
        message.kafka.key.map { String(decoding: $0, as: UTF8.self) }
    }

    func securityOutput(_ message: StageMessage, _ event: SecurityEvent.Kind, _ severity: SecurityEvent.Severity,
                        reason: String? = nil, serial: String? = nil, tableId: Int? = nil,
                        count: Int? = nil) throws -> StageOutput {
        metrics.securityEvents.increment()
        let event = SecurityEvent(
            id: MessageID.derived(from: message.header.id, "security-\(event.rawValue)"), producedAt: Timestamp.now(),
            instance: instance, event: event, severity: severity, requestId: message.header.id, reason: reason,
            deviceSerial: serial, tableId: tableId, count: count)
        return try .json(topic: configuration.securityTopic, key: serial, event)
    }
}
