import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkRuntime
import HallmarkSmileID
import Logging
import ServiceLifecycle

/// Builds the gateway's services from a ``ServiceContext``: the PBKDF2 pool, the SIGHUP
/// secret reloader and the ENC-1 stage.
package enum GatewayService {
    /// Topics and schema for ``ServiceRunner``.
    package static func definition(_ c: GatewayConfiguration) -> ServiceRunner.Definition {
        ServiceRunner.Definition(
            service: "gateway",
            topics: [
                c.encryptInput, c.encryptOutput, c.decryptInput, c.decryptOutput,
                c.handshakeInput, c.handshakeOutput, c.inboundInput, c.plaintextOutput,
                c.outboundInput, c.outboundOutput, c.securityTopic, c.auditTopic,
            ]
                + (c.operatorKeys.isEmpty ? [] : [c.privacy.requests, c.privacy.results]),
            schema: c.schema, migrations: GatewayMigrations.all(schema: c.schema))
    }

    package static func services(_ c: GatewayConfiguration, context: ServiceContext) throws -> [any Service] {
        // Signing secret versions and KEKs changed outside the gateway go into its audit trail.
        let (reloads, reloaded) = AsyncStream.makeStream(of: [KeySet].self, bufferingPolicy: .bufferingNewest(1))
        let secretKeys: @Sendable (SecretSet) -> KeySet = { s in
            KeySet(.signingSecretRotation, keys: s.versionDigests, current: s.signing.version)
        }
        let keys = try SmileIDKeys(
            c.keys, environment: context.environment, service: "gateway", logger: context.logger,
            onReload: { reloaded.yield([secretKeys($0)]) })
        context.logger.info(
            "encryption policy",
            metadata: [
                "encryption": "\(c.policy.encryption)", "excluded_paths": "\(c.policy.excludedPaths.count)",
            ])
        let keks: KeyEncryptionFile
        do {
            keks = try KeyEncryptionFile.fromEnvironment(context.environment, prefix: "HALLMARK_GATEWAY_")
        } catch {
            throw ConfigurationError(variable: "HALLMARK_GATEWAY_KEK_FILE", reason: error.reason)
        }
        guard let database = context.database else {
            throw ConfigurationError(variable: "HALLMARK_GATEWAY_POSTGRES_URL", reason: "E2EE-1 sessions need the database")
        }
        // One limiter for both stages: a window's event budget is the gateway's, not a stage's.
        let events = GatewayEvents(topic: c.securityTopic, instance: context.instance, settings: c.events, now: { Date() })
        let envelopes = EnvelopeProcessor(configuration: c, secrets: keys.secrets, deriver: keys.deriver, events: events)
        let sessionStore = SessionStore(schema: c.schema, keyring: keks.keyring)
        let sessions = SessionProcessor(configuration: c, store: sessionStore, events: events)
        let sweeper = PeriodicSweeper(
            what: "session", counter: "hallmark_gateway_sessions_expired_total",
            service: "gateway", interval: c.sweepInterval, logger: context.logger
        ) {
            try await sessionStore.sweep(pool: database.pool)
        }
        // The stages last, so the group stops them first: they drain while the pool still runs.
        // Sessions in their own consumer group: batches of many small messages in one
        // transaction, while ENC-1's PBKDF2-bound requests take key lanes without one.
        // The reporter before the stages, so the group stops it after they drained: its last
        // report includes the windows the final messages counted into.
        let reporter = SecurityEventReporter(
            limiter: events.limiter, producer: context.producer, logger: context.logger,
            summary: events.summary)
        let audit = AuditTrail(schema: c.schema, service: "gateway", topic: c.auditTopic, indexKey: c.indexKey ?? keks.indexKey)
        let recorder = try context.keyRotationRecorder(
            audit, keys: [secretKeys(keys.secrets.secrets), .keks(keks.keyring)],
            reloads: reloads)
        var privacy: [any Service] = []
        if !c.operatorKeys.isEmpty, c.indexKey ?? keks.indexKey != nil {
            privacy.append(
                try context.privacyStage(
                    GatewayPrivacy(audit: audit),
                    topics: c.privacy, operatorKeys: c.operatorKeys,
                    securityTopic: c.securityTopic))
        } else {
            context.logger.notice(
                "privacy requests are not answered: they need HALLMARK_GATEWAY_OPERATOR_KEYS_FILE and an index key (HALLMARK_GATEWAY_INDEX_KEY_FILE or index= in the KEK file)"
            )
        }
        return [recorder] + keys.services + [
            sweeper, reporter,
            // The inbox keeps each answer for a redelivery; decrypted plaintext only sealed.
            try context.stage(
                sessions, inputs: sessions.inputs, dispatch: .partitionBatches,
                groupSuffix: "-sessions", outputKeyring: keks.keyring),
            try context.stage(envelopes, name: "envelopes", inputs: envelopes.inputs),
        ] + privacy
    }
}
