import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkRuntime
import HallmarkMessages

/// The aggregator's settings, each declared once in ``settings``; beside them the shared
/// security and audit topics, and the id key (``SubmissionIDKey``:
/// `HALLMARK_AGGREGATOR_ID_KEY_FILE`, else `HALLMARK_AGGREGATOR_ID_KEY`; required to run).
package struct AggregatorConfiguration: DeclaredSettings {
    /// Camera bundles.
    package var submissionInput: String = declared(\.submissionInput)
    /// Submission answers.
    package var submissionOutput: String = declared(\.submissionOutput)
    /// Where tokens go to the authority.
    package var tokenRequests: String = declared(\.tokenRequests)
    /// The authority's PASS/FAIL answers.
    package var tokenResults: String = declared(\.tokenResults)
    /// Signed checkpoints.
    package var checkpoints: String = declared(\.checkpoints)
    /// Verification questions.
    package var verifyInput: String = declared(\.verifyInput)
    /// Verification answers.
    package var verifyOutput: String = declared(\.verifyOutput)
    /// Editors' claims (``ClaimRecorder``).
    package var claimInput: String = declared(\.claimInput)
    /// Their answers.
    package var claimOutput: String = declared(\.claimOutput)
    package var schema: String = declared(\.schema)
    /// The authority a `CameraSubmission`'s `manufacturer_cert.authority_id` must name.
    package var authorityID: String = declared(\.authorityID)
    /// The log's C2SP origin: its checkpoints' first line and its key's name.
    package var origin: String = declared(\.origin)
    /// The checkpoint signing key's file (``CheckpointSigningKey``), never from the database;
    /// required to run.
    package var signingKeyFile: String? = declared(\.signingKeyFile)
    /// The witnesses to ask and the quorum (a C2SP tlog-policy file); none when nil.
    package var witnessPolicyFile: String? = declared(\.witnessPolicyFile)
    /// The manufacturer CAs certificate bundles may chain to (``CertificateBundles``); none
    /// trusted when nil.
    package var deviceCAFile: String? = declared(\.deviceCAFile)
    /// How often the witnesses are asked about the latest checkpoint.
    package var witnessInterval: Duration = declared(\.witnessInterval)
    /// How long a witness may take to answer.
    package var witnessTimeout: Duration = declared(\.witnessTimeout)
    /// How long a checkpoint may wait for its witness quorum before it is late (an alert).
    package var witnessDeadline: Duration = declared(\.witnessDeadline)
    /// A directory kept up to the log as C2SP tiles (``TileWriter``); none when nil.
    package var tilesDirectory: String? = declared(\.tilesDirectory)
    /// How often the tile directory is brought up to the latest checkpoint.
    package var tilesInterval: Duration = declared(\.tilesInterval)
    /// Leaves' submissions per log batch.
    package var maxBatch: Int = declared(\.maxBatch)
    /// Longest a validated submission waits for its batch.
    package var linger: Duration = declared(\.linger)
    /// Shortest time between log batches while a stream keeps the writer busy.
    package var pace: Duration = declared(\.pace)
    /// Re-send a token request unanswered this long.
    package var resendAfter: Duration = declared(\.resendAfter)
    /// Answer `validation_timeout` when the authority has not answered this long.
    package var giveUpAfter: Duration = declared(\.giveUpAfter)
    /// How long an answered submission is kept, so the same id sent again gets the same answer;
    /// then it is swept (the log keeps its leaves).
    package var answerRetention: Duration = declared(\.answerRetention)
    /// How long a capture's token may carry its derived images (DESIGN §2, ``CaptureTokens``):
    /// no longer than answers are kept, since a derived image takes its capture's answer.
    package var captureWindow: Duration = declared(\.captureWindow)
    /// How long a submission whose parent is not known yet waits for it (DESIGN §2,
    /// ``ParentWaits``) before it is refused `invalid_provenance`, not for good.
    package var provenanceWindow: Duration = declared(\.provenanceWindow)
    /// How often the answer sweeper runs.
    package var sweepInterval: Duration = declared(\.sweepInterval)
    /// The audit trail's topic (checkpoint key changes). `HALLMARK_AUDIT_TOPIC`.
    package var auditTopic: String = declared(\.auditTopic)
    /// Security events (an id reused for other bytes). `HALLMARK_SECURITY_TOPIC`.
    package var securityTopic: String = declared(\.securityTopic)
    /// The key of the ids that cross the privacy split (``SubmissionIDKey``).
    package var idKey: SubmissionIDKey?

    package init() {}

    /// Every setting, in the order `hallmark config` lists them.
    package static let settings: [ConfigurationSetting<Self>] = [
        .bind(
            \.submissionInput,
            .topic(
                "HALLMARK_AGGREGATOR_SUBMISSION_INPUT", default: TopicCatalogue.submissions.name, doc: "camera bundles consumed"),
            placing: true),
        .bind(
            \.submissionOutput,
            .topic(
                "HALLMARK_AGGREGATOR_SUBMISSION_OUTPUT", default: TopicCatalogue.submissionResults.name, doc: "submission answers"
            ),
            placing: true),
        .bind(
            \.tokenRequests,
            .topic(
                "HALLMARK_AGGREGATOR_TOKEN_REQUESTS", default: TopicCatalogue.tokenRequests.name,
                doc: "where tokens go to the authority"), placing: true),
        .bind(
            \.tokenResults,
            .topic(
                "HALLMARK_AGGREGATOR_TOKEN_RESULTS", default: TopicCatalogue.tokenResults.name,
                doc: "the authority's PASS/FAIL answers"), placing: true),
        .bind(
            \.checkpoints,
            .topic("HALLMARK_AGGREGATOR_CHECKPOINTS", default: TopicCatalogue.checkpoints.name, doc: "signed checkpoints"),
            placing: true),
        .bind(
            \.verifyInput,
            .topic(
                "HALLMARK_AGGREGATOR_VERIFY_INPUT", default: TopicCatalogue.logVerifyRequests.name, doc: "verification questions"),
            placing: true),
        .bind(
            \.verifyOutput,
            .topic(
                "HALLMARK_AGGREGATOR_VERIFY_OUTPUT", default: TopicCatalogue.logVerifyResults.name, doc: "verification answers"),
            placing: true),
        .bind(
            \.claimInput,
            .topic(
                "HALLMARK_AGGREGATOR_CLAIM_INPUT", default: TopicCatalogue.modifications.name,
                doc: "editors' claims (hallmark.modification.claim.v1)"), placing: true),
        .bind(
            \.claimOutput,
            .topic(
                "HALLMARK_AGGREGATOR_CLAIM_OUTPUT", default: TopicCatalogue.modificationResults.name,
                doc: "answers to editors' claims"), placing: true),
        .bind(
            \.schema, .identifier("HALLMARK_AGGREGATOR_SCHEMA", default: "aggregator", doc: "PostgreSQL schema"), placing: true),
        .bind(
            \.authorityID,
            .text(
                "HALLMARK_AGGREGATOR_AUTHORITY_ID", default: "HALLMARK_AUTHORITY",
                doc: "the authority a submission's manufacturer_cert.authority_id must name"), placing: true),
        .bind(
            \.origin,
            Setting(
                "HALLMARK_AGGREGATOR_LOG_ORIGIN", default: "hallmark.local/birthmark-log",
                accepted: "a schema-less URL without spaces or '+'",
                doc: "the log's identity (C2SP origin): its checkpoints' first line and its key's name; set it to your own URL"
            ) { NoteVerifierKey.isValidName($0) ? $0 : nil }, placing: true),
        .bind(
            \.signingKeyFile,
            .optionalText("HALLMARK_AGGREGATOR_SIGNING_KEY_FILE", doc: "the checkpoint signing key's file; required to run")),
        .bind(
            \.witnessPolicyFile,
            .optionalText(
                "HALLMARK_AGGREGATOR_WITNESS_POLICY_FILE",
                doc:
                    "a C2SP tlog-policy file: the witnesses (vkey and URL) asked to cosign each checkpoint and the quorum that makes one witnessed; no witnesses when unset"
            )),
        .bind(
            \.deviceCAFile,
            .optionalText(
                "HALLMARK_AGGREGATOR_DEVICE_CA_FILE",
                doc:
                    "the manufacturer CAs certificate bundles may chain to: a PEM bundle as `hallmark authority ca export` writes it (a Trusted-Until: line before a CA ends its trust then); read again when it changes; no certificate bundle is trusted when unset"
            )),
        .bind(
            \.witnessInterval,
            .milliseconds(
                "HALLMARK_AGGREGATOR_WITNESS_INTERVAL_MS", default: .seconds(1), in: 10...3_600_000,
                doc: "how often the witnesses are asked to cosign the latest checkpoint")),
        .bind(
            \.witnessTimeout,
            .milliseconds(
                "HALLMARK_AGGREGATOR_WITNESS_TIMEOUT_MS", default: .seconds(5), in: 10...600_000,
                doc: "how long a witness may take to answer before the next round asks again")),
        .bind(
            \.witnessDeadline,
            .seconds(
                "HALLMARK_AGGREGATOR_WITNESS_DEADLINE_SECONDS", default: .seconds(600), in: 1...604_800,
                doc:
                    "the policy time: how long a checkpoint may wait for its witness quorum before the HallmarkCheckpointNotWitnessed alert fires (published as hallmark_aggregator_witness_deadline_seconds)"
            )),
        .bind(
            \.tilesDirectory,
            .optionalText(
                "HALLMARK_AGGREGATOR_TILES_DIR",
                doc:
                    "a directory kept up to the log as C2SP tlog-tiles (checkpoint, tile/…) as it grows, for a static web server, object store or CDN; none when unset"
            )),
        .bind(
            \.tilesInterval,
            .milliseconds(
                "HALLMARK_AGGREGATOR_TILES_INTERVAL_MS", default: .seconds(1), in: 10...3_600_000,
                doc: "how often the tile directory is brought up to the latest checkpoint")),
        .bind(\.maxBatch, .integer("HALLMARK_AGGREGATOR_BATCH", default: 1000, in: 1...10_000, doc: "submissions per log batch")),
        .bind(
            \.linger,
            .milliseconds(
                "HALLMARK_AGGREGATOR_LINGER_MS", default: .zero, in: 0...60_000,
                doc:
                    "how long a validated submission waits for its log batch to fill (0: the writer takes what waits as soon as it is free, so batches grow only under load)"
            )),
        .bind(
            \.pace,
            .milliseconds(
                "HALLMARK_AGGREGATOR_PACE_MS", default: .milliseconds(20), in: 0...60_000,
                doc:
                    "shortest time between log batches while a stream keeps the writer busy: each is a transaction and a signed checkpoint (0: never waits; after a quiet spell a submission goes at once)"
            )),
        .bind(
            \.resendAfter,
            .milliseconds(
                "HALLMARK_AGGREGATOR_RESEND_MS", default: .seconds(5), in: 10...3_600_000,
                doc: "a token request unanswered this long is sent again")),
        .bind(
            \.giveUpAfter,
            .milliseconds(
                "HALLMARK_AGGREGATOR_GIVE_UP_MS", default: .seconds(600), in: 100...604_800_000,
                doc: "unanswered by the authority this long: validation_timeout")),
        .bind(
            \.answerRetention,
            .integer(
                "HALLMARK_AGGREGATOR_ANSWER_RETENTION_HOURS", default: 7 * 24, in: 1...87_600,
                doc: "hours an answered submission is kept, so its id sent again gets the same answer"),
            as: { .seconds(3600 * $0) }),
        .bind(
            \.captureWindow,
            .seconds(
                "HALLMARK_AGGREGATOR_CAPTURE_WINDOW_S", default: .seconds(86_400), in: 1...(366 * 86_400),
                doc: "how long derived images (level >= 1) may reuse their capture's token; at most the answer retention")),
        .bind(
            \.provenanceWindow,
            .milliseconds(
                "HALLMARK_AGGREGATOR_PROVENANCE_WINDOW_MS", default: .seconds(60), in: 0...3_600_000,
                doc:
                    "how long a derived image whose parent is not known yet waits for it (cameras' networks reorder) before it is refused invalid_provenance; the same bytes sent later are judged again"
            )),
        .bind(
            \.sweepInterval,
            .seconds(
                "HALLMARK_AGGREGATOR_SWEEP_SECONDS", default: .seconds(300), in: 1...86_400,
                doc: "how often the answer sweeper runs")),
        .shared(\.auditTopic, ServiceRunner.Variable.auditTopic, placing: true),
        .shared(\.securityTopic, StageConfiguration.Variable.securityTopic, placing: true),
        .custom(SubmissionIDKey.variable.all) { c, s throws(ConfigurationError) in
            c.idKey = try SubmissionIDKey.fromEnvironment(s.environment)
        },
    ]

    /// Every topic the service consumes or produces (created at start-up when missing).
    package var topics: [String] {
        [
            submissionInput, submissionOutput, tokenRequests, tokenResults, checkpoints, verifyInput, verifyOutput,
            claimInput, claimOutput, auditTopic,
        ]
    }

    /// Reads the declared settings over the defaults, then checks them together.
    package static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> AggregatorConfiguration {
        let c = try AggregatorConfiguration().applying(Settings(env))
        let inputs = [c.submissionInput, c.tokenResults, c.verifyInput, c.claimInput]
        guard Set(inputs).count == inputs.count else {
            throw ConfigurationError(variable: "HALLMARK_AGGREGATOR_*_INPUT", reason: "every input topic must be different")
        }
        guard c.captureWindow <= c.answerRetention else {
            throw ConfigurationError(
                variable: variable(\.captureWindow), reason: "must not exceed \(variable(\.answerRetention))")
        }
        return c
    }

    /// The witness policy, read from ``witnessPolicyFile``; nil when none is set.
    package func witnessPolicy() throws(ConfigurationError) -> TransparencyPolicy? {
        guard let path = witnessPolicyFile else { return nil }
        let variable = Self.variable(\.witnessPolicyFile)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError(variable: variable, reason: "cannot be read")
        }
        do {
            let policy = try TransparencyPolicy.parse(text)
            guard policy.witnesses.contains(where: { $0.url != nil }) else {
                throw ConfigurationError(variable: variable, reason: "names no witness with a URL to ask")
            }
            return policy
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(variable: variable, reason: "\(error)")
        }
    }
}
