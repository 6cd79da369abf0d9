import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkRuntime

/// The aggregator's settings: its own ``Variable``s, the shared security and audit topics, and
/// the id key (``SubmissionIDKey``: `HALLMARK_AGGREGATOR_ID_KEY_FILE`, else
/// `HALLMARK_AGGREGATOR_ID_KEY`; required to run).
package struct AggregatorConfiguration: Sendable {
    /// Camera bundles.
    package var submissionInput = Variable.submissionInput.defaultValue
    /// Submission answers.
    package var submissionOutput = Variable.submissionOutput.defaultValue
    /// Where tokens go to the authority.
    package var tokenRequests = Variable.tokenRequests.defaultValue
    /// The authority's PASS/FAIL answers.
    package var tokenResults = Variable.tokenResults.defaultValue
    /// Signed checkpoints.
    package var checkpoints = Variable.checkpoints.defaultValue
    /// Verification questions.
    package var verifyInput = Variable.verifyInput.defaultValue
    /// Verification answers.
    package var verifyOutput = Variable.verifyOutput.defaultValue
    package var schema = Variable.schema.defaultValue
    /// The authority a `CameraSubmission`'s `manufacturer_cert.authority_id` must name.
    package var authorityID = Variable.authorityID.defaultValue
    /// The log's C2SP origin: its checkpoints' first line and its key's name.
    package var origin = Variable.origin.defaultValue
    /// The witnesses to ask and the quorum (a C2SP tlog-policy file); none when nil.
    package var witnessPolicyFile: String?
    /// How often the witnesses are asked about the latest checkpoint.
    package var witnessInterval = Variable.witnessInterval.defaultValue
    /// How long a witness may take to answer.
    package var witnessTimeout = Variable.witnessTimeout.defaultValue
    /// How long a checkpoint may wait for its witness quorum before it is late (an alert).
    package var witnessDeadline = Variable.witnessDeadline.defaultValue
    /// A directory kept up to the log as C2SP tiles (``TileWriter``); none when nil.
    package var tilesDirectory: String?
    /// How often the tile directory is brought up to the latest checkpoint.
    package var tilesInterval = Variable.tilesInterval.defaultValue
    /// The checkpoint signing key's file (``CheckpointSigningKey``), never from the database;
    /// required to run.
    package var signingKeyFile: String?
    /// Leaves' submissions per log batch.
    package var maxBatch = Variable.batch.defaultValue
    /// Longest a validated submission waits for its batch.
    package var linger = Variable.linger.defaultValue
    /// Re-send a token request unanswered this long.
    package var resendAfter = Variable.resend.defaultValue
    /// Answer `validation_timeout` when the authority has not answered this long.
    package var giveUpAfter = Variable.giveUp.defaultValue
    /// How long an answered submission is kept, so the same id sent again gets the same answer;
    /// then it is swept (the log keeps its leaves).
    package var answerRetention = Duration.seconds(3600 * Variable.answerRetentionHours.defaultValue)
    /// How long a capture's token may carry its derived images (DESIGN §2, ``CaptureTokens``):
    /// no longer than answers are kept, since a derived image takes its capture's answer.
    package var captureWindow = Variable.captureWindow.defaultValue
    /// How long a submission whose parent is not known yet waits for it (DESIGN §2,
    /// ``ParentWaits``) before it is refused `invalid_provenance`, not for good.
    package var provenanceWindow = Variable.provenanceWindow.defaultValue
    /// How often the answer sweeper runs.
    package var sweepInterval = Variable.sweep.defaultValue
    /// The audit trail's topic (checkpoint key changes). `HALLMARK_AUDIT_TOPIC`.
    package var auditTopic = ServiceRunner.Variable.auditTopic.defaultValue
    /// Security events (an id reused for other bytes). `HALLMARK_SECURITY_TOPIC`.
    package var securityTopic = StageConfiguration.Variable.securityTopic.defaultValue
    /// The key of the ids that cross the privacy split (``SubmissionIDKey``).
    package var idKey: SubmissionIDKey?

    package init() {}

    /// The aggregator's own variables, each declared once.
    package enum Variable {
        package static let submissionInput = Setting.topic(
            "HALLMARK_AGGREGATOR_SUBMISSION_INPUT", default: "birthmark.submissions", doc: "camera bundles consumed")
        package static let submissionOutput = Setting.topic(
            "HALLMARK_AGGREGATOR_SUBMISSION_OUTPUT", default: "birthmark.submission.results", doc: "submission answers")
        package static let tokenRequests = Setting.topic(
            "HALLMARK_AGGREGATOR_TOKEN_REQUESTS", default: "birthmark.token.requests", doc: "where tokens go to the authority")
        package static let tokenResults = Setting.topic(
            "HALLMARK_AGGREGATOR_TOKEN_RESULTS", default: "birthmark.token.results", doc: "the authority's PASS/FAIL answers")
        package static let checkpoints = Setting.topic(
            "HALLMARK_AGGREGATOR_CHECKPOINTS", default: "birthmark.checkpoints", doc: "signed checkpoints")
        package static let verifyInput = Setting.topic(
            "HALLMARK_AGGREGATOR_VERIFY_INPUT", default: "birthmark.verify.requests", doc: "verification questions")
        package static let verifyOutput = Setting.topic(
            "HALLMARK_AGGREGATOR_VERIFY_OUTPUT", default: "birthmark.verify.results", doc: "verification answers")
        package static let schema = Setting.identifier(
            "HALLMARK_AGGREGATOR_SCHEMA", default: "aggregator", doc: "PostgreSQL schema")
        package static let authorityID = Setting.text(
            "HALLMARK_AGGREGATOR_AUTHORITY_ID", default: "HALLMARK_AUTHORITY",
            doc: "the authority a submission's manufacturer_cert.authority_id must name")
        package static let origin = Setting(
            "HALLMARK_AGGREGATOR_LOG_ORIGIN", default: "hallmark.local/birthmark-log",
            accepted: "a schema-less URL without spaces or '+'",
            doc: "the log's identity (C2SP origin): its checkpoints' first line and its key's name; set it to your own URL"
        ) { NoteVerifierKey.isValidName($0) ? $0 : nil }
        package static let witnessPolicyFile = Setting.optionalText(
            "HALLMARK_AGGREGATOR_WITNESS_POLICY_FILE",
            doc:
                "a C2SP tlog-policy file: the witnesses (vkey and URL) asked to cosign each checkpoint and the quorum that makes one witnessed; no witnesses when unset"
        )
        package static let witnessInterval = Setting.milliseconds(
            "HALLMARK_AGGREGATOR_WITNESS_INTERVAL_MS", default: .seconds(1), in: 10...3_600_000,
            doc: "how often the witnesses are asked to cosign the latest checkpoint")
        package static let witnessTimeout = Setting.milliseconds(
            "HALLMARK_AGGREGATOR_WITNESS_TIMEOUT_MS", default: .seconds(5), in: 10...600_000,
            doc: "how long a witness may take to answer before the next round asks again")
        package static let witnessDeadline = Setting.seconds(
            "HALLMARK_AGGREGATOR_WITNESS_DEADLINE_SECONDS", default: .seconds(600), in: 1...604_800,
            doc:
                "the policy time: how long a checkpoint may wait for its witness quorum before the HallmarkCheckpointNotWitnessed alert fires (published as hallmark_aggregator_witness_deadline_seconds)"
        )
        package static let tilesDirectory = Setting.optionalText(
            "HALLMARK_AGGREGATOR_TILES_DIR",
            doc:
                "a directory kept up to the log as C2SP tlog-tiles (checkpoint, tile/…) as it grows, for a static web server, object store or CDN; none when unset"
        )
        package static let tilesInterval = Setting.milliseconds(
            "HALLMARK_AGGREGATOR_TILES_INTERVAL_MS", default: .seconds(1), in: 10...3_600_000,
            doc: "how often the tile directory is brought up to the latest checkpoint")
        package static let signingKeyFile = Setting.optionalText(
            "HALLMARK_AGGREGATOR_SIGNING_KEY_FILE", doc: "the checkpoint signing key's file; required to run")
        package static let batch = Setting.integer(
            "HALLMARK_AGGREGATOR_BATCH", default: 1000, in: 1...10_000, doc: "submissions per log batch")
        package static let linger = Setting.milliseconds(
            "HALLMARK_AGGREGATOR_LINGER_MS", default: .zero, in: 0...60_000,
            doc:
                "how long a validated submission waits for its log batch to fill (0: the writer takes what waits as soon as it is free, so batches grow only under load)"
        )
        package static let resend = Setting.milliseconds(
            "HALLMARK_AGGREGATOR_RESEND_MS", default: .seconds(5), in: 10...3_600_000,
            doc: "a token request unanswered this long is sent again")
        package static let giveUp = Setting.milliseconds(
            "HALLMARK_AGGREGATOR_GIVE_UP_MS", default: .seconds(600), in: 100...604_800_000,
            doc: "unanswered by the authority this long: validation_timeout")
        package static let answerRetentionHours = Setting.integer(
            "HALLMARK_AGGREGATOR_ANSWER_RETENTION_HOURS", default: 7 * 24, in: 1...87_600,
            doc: "hours an answered submission is kept, so its id sent again gets the same answer")
        package static let captureWindow = Setting.seconds(
            "HALLMARK_AGGREGATOR_CAPTURE_WINDOW_S", default: .seconds(86_400), in: 1...(366 * 86_400),
            doc: "how long derived images (level >= 1) may reuse their capture's token; at most the answer retention")
        package static let provenanceWindow = Setting.milliseconds(
            "HALLMARK_AGGREGATOR_PROVENANCE_WINDOW_MS", default: .seconds(60), in: 0...3_600_000,
            doc:
                "how long a derived image whose parent is not known yet waits for it (cameras' networks reorder) before it is refused invalid_provenance; the same bytes sent later are judged again"
        )
        package static let sweep = Setting.seconds(
            "HALLMARK_AGGREGATOR_SWEEP_SECONDS", default: .seconds(300), in: 1...86_400,
            doc: "how often the answer sweeper runs")

        /// Every variable, in the order `hallmark config` lists them.
        package static var all: [SettingDescription] {
            [
                submissionInput.description, submissionOutput.description, tokenRequests.description,
                tokenResults.description, checkpoints.description, verifyInput.description, verifyOutput.description,
                schema.description, authorityID.description, origin.description, signingKeyFile.description,
                witnessPolicyFile.description,
                witnessInterval.description, witnessTimeout.description, witnessDeadline.description,
                tilesDirectory.description,
                tilesInterval.description, batch.description,
                linger.description, resend.description, giveUp.description, answerRetentionHours.description,
                captureWindow.description, provenanceWindow.description, sweep.description,
            ] + SubmissionIDKey.variable.all
        }
    }

    /// Every topic the service consumes or produces (created at start-up when missing).
    package var topics: [String] {
        [submissionInput, submissionOutput, tokenRequests, tokenResults, checkpoints, verifyInput, verifyOutput, auditTopic]
    }

    /// The variables that place an aggregator (its schema, topics and authority id) as this
    /// configuration does: what a test or a bench hands the process it starts.
    package var placementEnvironment: [String: String] {
        [
            Variable.schema.name: schema, Variable.submissionInput.name: submissionInput,
            Variable.submissionOutput.name: submissionOutput, Variable.tokenRequests.name: tokenRequests,
            Variable.tokenResults.name: tokenResults, Variable.checkpoints.name: checkpoints,
            Variable.verifyInput.name: verifyInput, Variable.verifyOutput.name: verifyOutput,
            Variable.authorityID.name: authorityID, Variable.origin.name: origin,
            ServiceRunner.Variable.auditTopic.name: auditTopic,
            StageConfiguration.Variable.securityTopic.name: securityTopic,
        ]
    }

    /// Applies the environment over the defaults.
    package static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> AggregatorConfiguration {
        let s = Settings(env)
        var c = AggregatorConfiguration()
        c.submissionInput = try s.value(Variable.submissionInput)
        c.submissionOutput = try s.value(Variable.submissionOutput)
        c.tokenRequests = try s.value(Variable.tokenRequests)
        c.tokenResults = try s.value(Variable.tokenResults)
        c.checkpoints = try s.value(Variable.checkpoints)
        c.verifyInput = try s.value(Variable.verifyInput)
        c.verifyOutput = try s.value(Variable.verifyOutput)
        let inputs = [c.submissionInput, c.tokenResults, c.verifyInput]
        guard Set(inputs).count == inputs.count else {
            throw ConfigurationError(variable: "HALLMARK_AGGREGATOR_*_INPUT", reason: "every input topic must be different")
        }
        c.schema = try s.value(Variable.schema)
        c.authorityID = try s.value(Variable.authorityID)
        c.origin = try s.value(Variable.origin)
        c.signingKeyFile = try s.value(Variable.signingKeyFile)
        c.witnessPolicyFile = try s.value(Variable.witnessPolicyFile)
        c.witnessInterval = try s.value(Variable.witnessInterval)
        c.witnessTimeout = try s.value(Variable.witnessTimeout)
        c.witnessDeadline = try s.value(Variable.witnessDeadline)
        c.tilesDirectory = try s.value(Variable.tilesDirectory)
        c.tilesInterval = try s.value(Variable.tilesInterval)
        c.maxBatch = try s.value(Variable.batch)
        c.linger = try s.value(Variable.linger)
        c.resendAfter = try s.value(Variable.resend)
        c.giveUpAfter = try s.value(Variable.giveUp)
        c.answerRetention = .seconds(3600 * (try s.value(Variable.answerRetentionHours)))
        c.captureWindow = try s.value(Variable.captureWindow)
        guard c.captureWindow <= c.answerRetention else {
            throw ConfigurationError(
                variable: Variable.captureWindow.name, reason: "must not exceed HALLMARK_AGGREGATOR_ANSWER_RETENTION_HOURS")
        }
        c.provenanceWindow = try s.value(Variable.provenanceWindow)
        c.sweepInterval = try s.value(Variable.sweep)
        c.auditTopic = try s.value(ServiceRunner.Variable.auditTopic)
        c.securityTopic = try s.value(StageConfiguration.Variable.securityTopic)
        c.idKey = try SubmissionIDKey.fromEnvironment(env)
        return c
    }

    /// The witness policy, read from ``witnessPolicyFile``; nil when none is set.
    package func witnessPolicy() throws(ConfigurationError) -> TransparencyPolicy? {
        guard let path = witnessPolicyFile else { return nil }
        let variable = Variable.witnessPolicyFile.name
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
