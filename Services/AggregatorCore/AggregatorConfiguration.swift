import Foundation
import HallmarkCore

/// The aggregator's settings, from `HALLMARK_AGGREGATOR_…` variables over documented defaults.
public struct AggregatorConfiguration: Sendable {
    /// Camera bundles. `HALLMARK_AGGREGATOR_SUBMISSION_INPUT`, default `birthmark.submissions`.
    public var submissionInput = "birthmark.submissions"
    /// Submission answers. `HALLMARK_AGGREGATOR_SUBMISSION_OUTPUT`, default `birthmark.submission.results`.
    public var submissionOutput = "birthmark.submission.results"
    /// Where tokens go to the authority. `HALLMARK_AGGREGATOR_TOKEN_REQUESTS`, default `birthmark.token.requests`.
    public var tokenRequests = "birthmark.token.requests"
    /// The authority's PASS/FAIL answers. `HALLMARK_AGGREGATOR_TOKEN_RESULTS`, default `birthmark.token.results`.
    public var tokenResults = "birthmark.token.results"
    /// Signed checkpoints. `HALLMARK_AGGREGATOR_CHECKPOINTS`, default `birthmark.checkpoints`.
    public var checkpoints = "birthmark.checkpoints"
    /// Verification questions. `HALLMARK_AGGREGATOR_VERIFY_INPUT`, default `birthmark.verify.requests`.
    public var verifyInput = "birthmark.verify.requests"
    /// Verification answers. `HALLMARK_AGGREGATOR_VERIFY_OUTPUT`, default `birthmark.verify.results`.
    public var verifyOutput = "birthmark.verify.results"
    /// `HALLMARK_AGGREGATOR_SCHEMA`, default `aggregator`.
    public var schema = "aggregator"
    /// The authority a `CameraSubmission`'s `manufacturer_cert.authority_id` must name.
    /// `HALLMARK_AGGREGATOR_AUTHORITY_ID`, default `HALLMARK_AUTHORITY`.
    public var authorityID = "HALLMARK_AUTHORITY"
    /// The checkpoint signing key (``CheckpointSigningKey``), never from the database.
    /// `HALLMARK_AGGREGATOR_SIGNING_KEY_FILE`; required to run.
    public var signingKeyFile: String?
    /// Leaves' submissions per log batch. `HALLMARK_AGGREGATOR_BATCH`, default 1000.
    public var maxBatch = 1000
    /// Longest a validated submission waits for its batch. `HALLMARK_AGGREGATOR_LINGER_MS`, default 100.
    public var linger: Duration = .milliseconds(100)
    /// Re-send a token request unanswered this long. `HALLMARK_AGGREGATOR_RESEND_MS`, default 5000.
    public var resendAfter: Duration = .seconds(5)
    /// Answer `validation_timeout` when the authority has not answered this long.
    /// `HALLMARK_AGGREGATOR_GIVE_UP_MS`, default 600000 (10 minutes).
    public var giveUpAfter: Duration = .seconds(600)
    /// How long an answered submission is kept, so the same id sent again gets the same answer;
    /// then it is swept (the log keeps its leaves). `HALLMARK_AGGREGATOR_ANSWER_RETENTION_HOURS`,
    /// default 168 (7 days, the inbox's retention).
    public var answerRetention: Duration = .seconds(7 * 24 * 3600)
    /// How often the answer sweeper runs. `HALLMARK_AGGREGATOR_SWEEP_SECONDS`, default 300.
    public var sweepInterval: Duration = .seconds(300)
    /// The audit trail's topic (checkpoint key changes). `HALLMARK_AUDIT_TOPIC`, default `hallmark.audit`.
    public var auditTopic = "hallmark.audit"
    /// Security events (an id reused for other bytes). `HALLMARK_SECURITY_TOPIC`, default `hallmark.security`.
    public var securityTopic = "hallmark.security"
    /// The key of the ids that cross the privacy split (``SubmissionIDKey``).
    /// `HALLMARK_AGGREGATOR_ID_KEY_FILE`, else `HALLMARK_AGGREGATOR_ID_KEY`; required to run.
    public var idKey: SubmissionIDKey?

    public init() {}

    /// Every topic the service consumes or produces (created at start-up when missing).
    public var topics: [String] {
        [submissionInput, submissionOutput, tokenRequests, tokenResults, checkpoints, verifyInput, verifyOutput, auditTopic]
    }

    /// The variables that place an aggregator (its schema, topics and authority id) as this
    /// configuration does: what a test or a bench hands the process it starts.
    public var placementEnvironment: [String: String] {
        [
            "HALLMARK_AGGREGATOR_SCHEMA": schema, "HALLMARK_AGGREGATOR_SUBMISSION_INPUT": submissionInput,
            "HALLMARK_AGGREGATOR_SUBMISSION_OUTPUT": submissionOutput, "HALLMARK_AGGREGATOR_TOKEN_REQUESTS": tokenRequests,
            "HALLMARK_AGGREGATOR_TOKEN_RESULTS": tokenResults, "HALLMARK_AGGREGATOR_CHECKPOINTS": checkpoints,
            "HALLMARK_AGGREGATOR_VERIFY_INPUT": verifyInput, "HALLMARK_AGGREGATOR_VERIFY_OUTPUT": verifyOutput,
            "HALLMARK_AGGREGATOR_AUTHORITY_ID": authorityID, "HALLMARK_AUDIT_TOPIC": auditTopic,
            "HALLMARK_SECURITY_TOPIC": securityTopic,
        ]
    }

    /// Applies the environment over the defaults.
    public static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> AggregatorConfiguration {
        let s = Settings(env)
        var c = AggregatorConfiguration()
        c.submissionInput = try s.topic("HALLMARK_AGGREGATOR_SUBMISSION_INPUT", default: c.submissionInput)
        c.submissionOutput = try s.topic("HALLMARK_AGGREGATOR_SUBMISSION_OUTPUT", default: c.submissionOutput)
        c.tokenRequests = try s.topic("HALLMARK_AGGREGATOR_TOKEN_REQUESTS", default: c.tokenRequests)
        c.tokenResults = try s.topic("HALLMARK_AGGREGATOR_TOKEN_RESULTS", default: c.tokenResults)
        c.checkpoints = try s.topic("HALLMARK_AGGREGATOR_CHECKPOINTS", default: c.checkpoints)
        c.verifyInput = try s.topic("HALLMARK_AGGREGATOR_VERIFY_INPUT", default: c.verifyInput)
        c.verifyOutput = try s.topic("HALLMARK_AGGREGATOR_VERIFY_OUTPUT", default: c.verifyOutput)
        let inputs = [c.submissionInput, c.tokenResults, c.verifyInput]
        guard Set(inputs).count == inputs.count else {
            throw ConfigurationError(variable: "HALLMARK_AGGREGATOR_*_INPUT", reason: "every input topic must be different")
        }
        c.schema = try s.identifier("HALLMARK_AGGREGATOR_SCHEMA", default: c.schema)
        c.authorityID = s.string("HALLMARK_AGGREGATOR_AUTHORITY_ID", default: c.authorityID)
        guard !c.authorityID.isEmpty else {
            throw ConfigurationError(variable: "HALLMARK_AGGREGATOR_AUTHORITY_ID", reason: "must not be empty")
        }
        c.signingKeyFile = s.string("HALLMARK_AGGREGATOR_SIGNING_KEY_FILE")
        c.maxBatch = try s.integer("HALLMARK_AGGREGATOR_BATCH", default: c.maxBatch, in: 1...10_000)
        c.linger = try s.milliseconds("HALLMARK_AGGREGATOR_LINGER_MS", default: c.linger, in: 1...60_000)
        c.resendAfter = try s.milliseconds("HALLMARK_AGGREGATOR_RESEND_MS", default: c.resendAfter, in: 10...3_600_000)
        c.giveUpAfter = try s.milliseconds("HALLMARK_AGGREGATOR_GIVE_UP_MS", default: c.giveUpAfter, in: 100...604_800_000)
        c.answerRetention = .seconds(
            3600
                * (try s.integer(
                    "HALLMARK_AGGREGATOR_ANSWER_RETENTION_HOURS",
                    default: Int(c.answerRetention.components.seconds / 3600),
                    in: 1...87_600)))
        c.sweepInterval = try s.seconds("HALLMARK_AGGREGATOR_SWEEP_SECONDS", default: c.sweepInterval, in: 1...86_400)
        c.auditTopic = try s.topic("HALLMARK_AUDIT_TOPIC", default: c.auditTopic)
        c.securityTopic = try s.topic("HALLMARK_SECURITY_TOPIC", default: c.securityTopic)
        c.idKey = try SubmissionIDKey.fromEnvironment(env)
        return c
    }
}
