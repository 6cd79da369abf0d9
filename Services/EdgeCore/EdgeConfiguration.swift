import Foundation
import HallmarkCore
import HallmarkRuntime

/// The edge's settings (DESIGN BM-EDGE), each declared once in ``Variable``.
package struct EdgeConfiguration: Sendable {
    /// The address to listen on.
    package var host = Variable.host.defaultValue
    /// The port (the Birthmark reference server's, so a camera pointed at one reaches the other).
    package var port = Variable.port.defaultValue
    /// Where camera bundles go (the aggregator's submission input).
    package var submissions = Variable.submissions.defaultValue
    /// The aggregator's submission answers.
    package var submissionResults = Variable.submissionResults.defaultValue
    /// Verification questions and the aggregator's answers.
    package var verifyRequests = Variable.verifyRequests.defaultValue
    package var verifyResults = Variable.verifyResults.defaultValue
    /// The aggregator's signed checkpoints: each new one ends the cached verification answers.
    package var checkpoints = Variable.checkpoints.defaultValue
    /// How long a verification waits for the aggregator before answering 503.
    package var verifyWait = Variable.verifyWait.defaultValue
    /// Most verification answers cached.
    package var verifyCacheEntries = Variable.verifyCacheEntries.defaultValue
    /// The aggregator's tile directory (C2SP tlog-tiles), served under `/log/`; none when nil.
    package var tilesDirectory: String?
    /// Submissions a client may make per ``rateWindow`` (0: no limit).
    package var rateLimit = Variable.rateLimit.defaultValue
    package var rateWindow = Variable.rateWindow.defaultValue
    /// The header naming the client behind a proxy (its last address); the peer when nil.
    package var clientAddressHeader: String?
    /// The edge's PostgreSQL schema (receipts).
    package var schema = Variable.schema.defaultValue
    /// How long a submit waits for the outcome before answering `pending_validation`.
    package var answerWait = Variable.answerWait.defaultValue
    /// The largest request body read.
    package var maxBodyBytes = Variable.maxBodyBytes.defaultValue
    /// How long a request may take to arrive, body included.
    package var readTimeout = Variable.readTimeout.defaultValue
    /// How long receipts are kept for `GET /api/v1/submission/{receipt_id}`.
    package var receiptRetention = Duration.seconds(3600 * Variable.receiptRetentionHours.defaultValue)
    /// How often receipts past their retention are deleted.
    package var sweepInterval = Variable.sweep.defaultValue
    /// The bearer token of the `/ops` page; the page is off when nil.
    package var opsToken: String?

    package init() {}

    /// The edge's own variables.
    package enum Variable {
        package static let host = Setting.text("HALLMARK_EDGE_HOST", default: "0.0.0.0", doc: "the address to listen on")
        package static let port = Setting.integer(
            "HALLMARK_EDGE_PORT", default: 8545, in: 0...65_535,
            doc: "the HTTP port (the Birthmark reference server's; 0: any free port)")
        package static let submissions = Setting.topic(
            "HALLMARK_EDGE_SUBMISSIONS", default: "birthmark.submissions", doc: "where camera bundles are published")
        package static let submissionResults = Setting.topic(
            "HALLMARK_EDGE_SUBMISSION_RESULTS", default: "birthmark.submission.results",
            doc: "the aggregator's submission answers")
        package static let verifyRequests = Setting.topic(
            "HALLMARK_EDGE_VERIFY_REQUESTS", default: "birthmark.verify.requests", doc: "where verification questions go")
        package static let verifyResults = Setting.topic(
            "HALLMARK_EDGE_VERIFY_RESULTS", default: "birthmark.verify.results", doc: "the aggregator's verification answers")
        package static let checkpoints = Setting.topic(
            "HALLMARK_EDGE_CHECKPOINTS", default: "birthmark.checkpoints",
            doc: "the aggregator's signed checkpoints (each new one ends the cached answers)")
        package static let verifyWait = Setting.milliseconds(
            "HALLMARK_EDGE_VERIFY_WAIT_MS", default: .seconds(5), in: 100...60_000,
            doc: "how long a verification waits for the aggregator (503 beyond)")
        package static let verifyCacheEntries = Setting.integer(
            "HALLMARK_EDGE_VERIFY_CACHE_ENTRIES", default: 100_000, in: 0...10_000_000,
            doc: "most verification answers cached until the next checkpoint (0: none)")
        package static let tilesDirectory = Setting.optionalText(
            "HALLMARK_EDGE_TILES_DIR",
            doc:
                "the aggregator's tile directory (HALLMARK_AGGREGATOR_TILES_DIR, shared read-only), served under /log/; none when unset"
        )
        package static let rateLimit = Setting.integer(
            "HALLMARK_EDGE_RATE_LIMIT", default: 500, in: 0...100_000_000,
            doc: "submissions per client per HALLMARK_EDGE_RATE_WINDOW_S on each replica, 429 beyond (0: no limit)")
        package static let rateWindow = Setting.seconds(
            "HALLMARK_EDGE_RATE_WINDOW_S", default: .seconds(600), in: 1...86_400, doc: "the rate limit's window")
        package static let clientAddressHeader = Setting.optionalText(
            "HALLMARK_EDGE_CLIENT_ADDRESS_HEADER",
            doc:
                "the header a trusted proxy sets to the client's address (e.g. X-Forwarded-For; its last address counts); the connection's peer when unset"
        )
        package static let schema = Setting.identifier("HALLMARK_EDGE_SCHEMA", default: "edge", doc: "PostgreSQL schema")
        package static let answerWait = Setting.milliseconds(
            "HALLMARK_EDGE_ANSWER_WAIT_MS", default: .seconds(2), in: 0...30_000,
            doc: "how long a submit waits for its outcome before answering pending_validation")
        package static let maxBodyBytes = Setting.integer(
            "HALLMARK_EDGE_MAX_BODY_BYTES", default: 64 * 1024, in: 1024...(1024 * 1024),
            doc: "the largest request body read (413 beyond)")
        package static let readTimeout = Setting.milliseconds(
            "HALLMARK_EDGE_READ_TIMEOUT_MS", default: .seconds(10), in: 100...120_000,
            doc: "how long a request may take to arrive, body included (408 beyond)")
        package static let receiptRetentionHours = Setting.integer(
            "HALLMARK_EDGE_RECEIPT_RETENTION_HOURS", default: 7 * 24, in: 1...87_600,
            doc: "hours a receipt's outcome is kept for GET /api/v1/submission/{receipt_id}")
        package static let sweep = Setting.seconds(
            "HALLMARK_EDGE_SWEEP_SECONDS", default: .seconds(300), in: 1...86_400,
            doc: "how often receipts past their retention are deleted")
        package static let opsToken = FileSetting(
            "HALLMARK_EDGE_OPS_TOKEN",
            doc:
                "the bearer token of the /ops dashboard (32 to 256 printable characters, e.g. openssl rand -hex 32); /ops is off when unset"
        )

        /// Every variable, in the order `hallmark config` lists them.
        package static var all: [SettingDescription] {
            [
                host.description, port.description, submissions.description, submissionResults.description,
                verifyRequests.description, verifyResults.description, checkpoints.description, verifyWait.description,
                verifyCacheEntries.description, tilesDirectory.description, rateLimit.description, rateWindow.description,
                clientAddressHeader.description,
                schema.description, answerWait.description, maxBodyBytes.description, readTimeout.description,
                receiptRetentionHours.description, sweep.description,
            ] + opsToken.all
        }
    }

    /// Every topic the edge produces or consumes (created at start-up when missing).
    package var topics: [String] { [submissions, submissionResults, verifyRequests, verifyResults, checkpoints] }

    /// Applies the environment over the defaults.
    package static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> EdgeConfiguration {
        let s = Settings(env)
        var c = EdgeConfiguration()
        c.host = try s.value(Variable.host)
        c.port = try s.value(Variable.port)
        c.submissions = try s.value(Variable.submissions)
        c.submissionResults = try s.value(Variable.submissionResults)
        c.verifyRequests = try s.value(Variable.verifyRequests)
        c.verifyResults = try s.value(Variable.verifyResults)
        c.checkpoints = try s.value(Variable.checkpoints)
        c.verifyWait = try s.value(Variable.verifyWait)
        c.verifyCacheEntries = try s.value(Variable.verifyCacheEntries)
        c.tilesDirectory = try s.value(Variable.tilesDirectory)
        c.rateLimit = try s.value(Variable.rateLimit)
        c.rateWindow = try s.value(Variable.rateWindow)
        c.clientAddressHeader = try s.value(Variable.clientAddressHeader)
        c.schema = try s.value(Variable.schema)
        c.answerWait = try s.value(Variable.answerWait)
        c.maxBodyBytes = try s.value(Variable.maxBodyBytes)
        c.readTimeout = try s.value(Variable.readTimeout)
        c.receiptRetention = .seconds(3600 * (try s.value(Variable.receiptRetentionHours)))
        c.sweepInterval = try s.value(Variable.sweep)
        if let (text, variable) = try Variable.opsToken.text(in: s) {
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (32...256).contains(token.utf8.count), token.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
                throw ConfigurationError(variable: variable, reason: "must be 32 to 256 printable characters without spaces")
            }
            c.opsToken = token
        }
        return c
    }
}
