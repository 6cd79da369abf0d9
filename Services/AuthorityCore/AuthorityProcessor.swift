import Foundation
import HallmarkEnvelope
import HallmarkPostgres
import HallmarkRuntime

/// The authority's transactional stage: provisioning requests and admin commands, each in
/// its message's transaction (token validation is ``TokenProcessor``).
public struct AuthorityProcessor: StageProcessor {
    public let schemas: Set<String> = [ProvisionRequest.schema, AdminCommand.schema]
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

    public func process(_ message: StageMessage, context: StageContext) async throws -> [StageOutput] {
        guard let connection = context.connection else {
            throw AuthorityError(.configuration, "the authority needs its database")
        }
        switch message.header.schema {
        case ProvisionRequest.schema: return try await provision(message, connection: connection)
        default: return try await administer(message, connection: connection)
        }
    }

    /// The input's Kafka key, passed on to the answer.
    func key(of message: StageMessage) -> String? {
        message.kafka.key.map { String(decoding: $0, as: UTF8.self) }
    }

    func securityOutput(_ message: StageMessage, _ event: SecurityEvent.Kind, _ severity: SecurityEvent.Severity,
                        reason: String? = nil, serial: String? = nil, tableId: Int? = nil) throws -> StageOutput {
        try events.output(for: message, event, severity, reason: reason, serial: serial, tableId: tableId)
    }
}
