import Foundation
import HallmarkCore
import HallmarkPostgres
import HallmarkRuntime
import HallmarkSmileID
import Logging
import ServiceLifecycle

/// Builds the signer's services from a ``ServiceContext``: the PBKDF2 pool, the SIGHUP
/// secret reloader, the replay sweeper and its two stages (``SignerStages``).
package enum SignerService {
    /// Topics, schema and migrations for ``ServiceRunner``.
    package static func definition(_ c: SignerConfiguration) -> ServiceRunner.Definition {
        ServiceRunner.Definition(
            service: "signer",
            topics: [c.signInput, c.signOutput, c.verifyInput, c.verifyOutput, c.securityTopic]
                + [c.auditTopic] + (c.answersPrivacyRequests ? [c.privacy.requests, c.privacy.results] : []),
            schema: c.schema, migrations: SignerMigrations.all(schema: c.schema))
    }

    package static func services(_ c: SignerConfiguration, context: ServiceContext) throws -> [any Service] {
        // Signing secret versions added, retired or made current go into the audit trail, at
        // start and at every SIGHUP reload.
        let (reloads, reloaded) = AsyncStream.makeStream(of: [KeySet].self, bufferingPolicy: .bufferingNewest(1))
        let secretKeys: @Sendable (SecretSet) -> KeySet = { s in
            KeySet(.signingSecretRotation, keys: s.versionDigests, current: s.signing.version)
        }
        let keys = try SmileIDKeys(
            c.keys, environment: context.environment, service: "signer", logger: context.logger,
            onReload: { reloaded.yield([secretKeys($0)]) })
        let audit = AuditTrail(schema: c.schema, service: "signer", topic: c.auditTopic, indexKey: c.indexKey)
        let zips = c.zipReader(service: "signer", logger: context.logger)
        let stages = SignerStages(
            configuration: c, secrets: keys.secrets, deriver: keys.deriver,
            instance: context.instance, zips: zips)
        // Before the stage, so the group stops it after the stage drained: its last report
        // includes the windows the final messages counted into.
        var services: [any Service] =
            [
                try context.keyRotationRecorder(audit, keys: [secretKeys(keys.secrets.secrets)], reloads: reloads)
            ] + keys.services + [
                zips.pool,
                SecurityEventReporter(
                    limiter: stages.verify.limiter, producer: context.producer, logger: context.logger,
                    now: stages.verify.now, summary: stages.verify.events.summary),
            ]
        // The service always has its database (its definition names a schema): the replay
        // table is what makes an accepted MAC single-use.
        guard let database = context.database else {
            throw ConfigurationError(variable: "HALLMARK_SIGNER_POSTGRES_URL", reason: "the signer needs its database")
        }
        services.append(
            ReplaySweeper.make(
                store: ReplayStore(schema: c.schema), pool: database.pool,
                interval: c.sweepInterval, logger: context.logger))
        if c.answersPrivacyRequests {
            services.append(
                try context.privacyStage(
                    SignerPrivacy(audit: audit),
                    topics: c.privacy, operatorKeys: c.operatorKeys,
                    securityTopic: c.securityTopic))
        } else {
            context.logger.notice(
                "privacy requests are not answered: they need HALLMARK_SIGNER_OPERATOR_KEYS_FILE and HALLMARK_SIGNER_INDEX_KEY_FILE"
            )
        }
        // Last, so the group stops them first: the stages drain while the pool still runs. Each
        // has its own consumer group: the sign stage the service's, verification `-verify`.
        services.append(try context.stage(stages.sign, name: "sign", inputs: stages.sign.inputs))
        services.append(try context.stage(stages.verify, inputs: stages.verify.inputs, groupSuffix: "-verify"))
        return services
    }
}
