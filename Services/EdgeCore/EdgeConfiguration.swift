import Foundation
import HallmarkCore
import HallmarkCrypto
import HallmarkRuntime
import HallmarkMessages

/// The edge's settings (DESIGN BM-EDGE), each declared once in ``settings``.
package struct EdgeConfiguration: DeclaredSettings {
    /// The address to listen on.
    package var host: String = declared(\.host)
    /// The port (the Birthmark reference server's, so a camera pointed at one reaches the other).
    package var port: Int = declared(\.port)
    /// Where camera bundles go (the aggregator's submission input).
    package var submissions: String = declared(\.submissions)
    /// The aggregator's submission answers.
    package var submissionResults: String = declared(\.submissionResults)
    /// Verification questions and the aggregator's answers.
    package var verifyRequests: String = declared(\.verifyRequests)
    package var verifyResults: String = declared(\.verifyResults)
    /// Where editors' claims go, and the aggregator's answers to them.
    package var modifications: String = declared(\.modifications)
    package var modificationResults: String = declared(\.modificationResults)
    /// The aggregator's signed checkpoints: each new one ends the cached verification answers.
    package var checkpoints: String = declared(\.checkpoints)
    /// How long a verification waits for the aggregator before answering 503.
    package var verifyWait: Duration = declared(\.verifyWait)
    /// Most verification answers cached.
    package var verifyCacheEntries: Int = declared(\.verifyCacheEntries)
    /// The aggregator's tile directory (C2SP tlog-tiles), served under `/log/`; none when nil.
    package var tilesDirectory: String? = declared(\.tilesDirectory)
    /// The C2SP tlog-policy the `/verify` page checks answers with (the log's key, the
    /// witnesses and their quorum); the page says it has no key when nil.
    package var trustPolicyFile: String? = declared(\.trustPolicyFile)
    /// Submissions a client may make per ``rateWindow`` (0: no limit).
    package var rateLimit: Int = declared(\.rateLimit)
    package var rateWindow: Duration = declared(\.rateWindow)
    /// The header naming the client behind a proxy (its last address); the peer when nil.
    package var clientAddressHeader: String? = declared(\.clientAddressHeader)
    /// The edge's PostgreSQL schema (receipts).
    package var schema: String = declared(\.schema)
    /// How long a submit waits for the outcome before answering `pending_validation`.
    package var answerWait: Duration = declared(\.answerWait)
    /// The largest request body read.
    package var maxBodyBytes: Int = declared(\.maxBodyBytes)
    /// How long a request may take to arrive, body included.
    package var readTimeout: Duration = declared(\.readTimeout)
    /// How long receipts are kept for `GET /api/v1/submission/{receipt_id}`.
    package var receiptRetention: Duration = declared(\.receiptRetention)
    /// How often receipts past their retention are deleted.
    package var sweepInterval: Duration = declared(\.sweepInterval)
    /// The bearer token of the `/ops` page; the page is off when nil.
    package var opsToken: String?

    package init() {}

    /// The `/ops` page's bearer token, in a file or inline.
    static let opsTokenSetting = FileSetting(
        "HALLMARK_EDGE_OPS_TOKEN",
        doc:
            "the bearer token of the /ops dashboard (32 to 256 printable characters, e.g. openssl rand -hex 32); /ops is off when unset"
    )

    /// Every setting, in the order `hallmark config` lists them.
    package static let settings: [ConfigurationSetting<Self>] = [
        .bind(\.host, .text("HALLMARK_EDGE_HOST", default: "0.0.0.0", doc: "the address to listen on")),
        .bind(
            \.port,
            .integer(
                "HALLMARK_EDGE_PORT", default: 8545, in: 0...65_535,
                doc: "the HTTP port (the Birthmark reference server's; 0: any free port)")),
        .bind(
            \.submissions,
            .topic(
                "HALLMARK_EDGE_SUBMISSIONS", default: TopicCatalogue.submissions.name, doc: "where camera bundles are published")),
        .bind(
            \.submissionResults,
            .topic(
                "HALLMARK_EDGE_SUBMISSION_RESULTS", default: TopicCatalogue.submissionResults.name,
                doc: "the aggregator's submission answers")),
        .bind(
            \.verifyRequests,
            .topic(
                "HALLMARK_EDGE_VERIFY_REQUESTS", default: TopicCatalogue.logVerifyRequests.name,
                doc: "where verification questions go")),
        .bind(
            \.verifyResults,
            .topic(
                "HALLMARK_EDGE_VERIFY_RESULTS", default: TopicCatalogue.logVerifyResults.name,
                doc: "the aggregator's verification answers")),
        .bind(
            \.modifications,
            .topic(
                "HALLMARK_EDGE_MODIFICATIONS", default: TopicCatalogue.modifications.name,
                doc: "where editors' claims (POST /api/v1/modifications) go")),
        .bind(
            \.modificationResults,
            .topic(
                "HALLMARK_EDGE_MODIFICATION_RESULTS", default: TopicCatalogue.modificationResults.name,
                doc: "the aggregator's answers to editors' claims")),
        .bind(
            \.checkpoints,
            .topic(
                "HALLMARK_EDGE_CHECKPOINTS", default: TopicCatalogue.checkpoints.name,
                doc: "the aggregator's signed checkpoints (each new one ends the cached answers)")),
        .bind(
            \.verifyWait,
            .milliseconds(
                "HALLMARK_EDGE_VERIFY_WAIT_MS", default: .seconds(5), in: 100...60_000,
                doc: "how long a verification waits for the aggregator (503 beyond)")),
        .bind(
            \.verifyCacheEntries,
            .integer(
                "HALLMARK_EDGE_VERIFY_CACHE_ENTRIES", default: 100_000, in: 0...10_000_000,
                doc: "most verification answers cached until the next checkpoint (0: none)")),
        .bind(
            \.trustPolicyFile,
            .optionalText(
                "HALLMARK_EDGE_TRUST_POLICY_FILE",
                doc:
                    "a C2SP tlog-policy file (the log's vkey, its witnesses and quorum: the aggregator's HALLMARK_AGGREGATOR_WITNESS_POLICY_FILE will do) that the /verify page checks answers with; none when unset"
            )),
        .bind(
            \.tilesDirectory,
            .optionalText(
                "HALLMARK_EDGE_TILES_DIR",
                doc:
                    "the aggregator's tile directory (HALLMARK_AGGREGATOR_TILES_DIR, shared read-only), served under /log/; none when unset"
            )),
        .bind(
            \.rateLimit,
            .integer(
                "HALLMARK_EDGE_RATE_LIMIT", default: 500, in: 0...100_000_000,
                doc: "submissions per client per HALLMARK_EDGE_RATE_WINDOW_S on each replica, 429 beyond (0: no limit)")),
        .bind(
            \.rateWindow,
            .seconds("HALLMARK_EDGE_RATE_WINDOW_S", default: .seconds(600), in: 1...86_400, doc: "the rate limit's window")),
        .bind(
            \.clientAddressHeader,
            .optionalText(
                "HALLMARK_EDGE_CLIENT_ADDRESS_HEADER",
                doc:
                    "the header a trusted proxy sets to the client's address (e.g. X-Forwarded-For; its last address counts); the connection's peer when unset"
            )),
        .bind(\.schema, .identifier("HALLMARK_EDGE_SCHEMA", default: "edge", doc: "PostgreSQL schema")),
        .bind(
            \.answerWait,
            .milliseconds(
                "HALLMARK_EDGE_ANSWER_WAIT_MS", default: .seconds(2), in: 0...30_000,
                doc: "how long a submit waits for its outcome before answering pending_validation")),
        .bind(
            \.maxBodyBytes,
            .integer(
                "HALLMARK_EDGE_MAX_BODY_BYTES", default: 64 * 1024, in: 1024...(1024 * 1024),
                doc: "the largest request body read (413 beyond)")),
        .bind(
            \.readTimeout,
            .milliseconds(
                "HALLMARK_EDGE_READ_TIMEOUT_MS", default: .seconds(10), in: 100...120_000,
                doc: "how long a request may take to arrive, body included (408 beyond)")),
        .bind(
            \.receiptRetention,
            .integer(
                "HALLMARK_EDGE_RECEIPT_RETENTION_HOURS", default: 7 * 24, in: 1...87_600,
                doc: "hours a receipt's outcome is kept for GET /api/v1/submission/{receipt_id}"),
            as: { .seconds(3600 * $0) }),
        .bind(
            \.sweepInterval,
            .seconds(
                "HALLMARK_EDGE_SWEEP_SECONDS", default: .seconds(300), in: 1...86_400,
                doc: "how often receipts past their retention are deleted")),
        .custom(opsTokenSetting.all) { c, s throws(ConfigurationError) in
            guard let (text, variable) = try opsTokenSetting.text(in: s) else { return }
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (32...256).contains(token.utf8.count), token.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
                throw ConfigurationError(variable: variable, reason: "must be 32 to 256 printable characters without spaces")
            }
            c.opsToken = token
        },
    ]

    /// Every topic the edge produces or consumes (created at start-up when missing).
    package var topics: [String] {
        [submissions, submissionResults, verifyRequests, verifyResults, modifications, modificationResults, checkpoints]
    }

    /// The policy of ``trustPolicyFile``, read and parsed; nil when none is set.
    package func trustPolicy() throws(ConfigurationError) -> TransparencyPolicy? {
        guard let path = trustPolicyFile else { return nil }
        let variable = Self.variable(\.trustPolicyFile)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError(variable: variable, reason: "cannot be read")
        }
        do { return try TransparencyPolicy.parse(text) } catch {
            throw ConfigurationError(variable: variable, reason: "is not a C2SP tlog-policy: \(error)")
        }
    }

    /// Reads the declared settings over the defaults.
    package static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> EdgeConfiguration {
        try EdgeConfiguration().applying(Settings(env))
    }
}
