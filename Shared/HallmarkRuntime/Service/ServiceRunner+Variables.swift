import HallmarkCore
import HallmarkPostgres
import Logging
import HallmarkMessages

extension ServiceRunner {
    /// The variables every service reads beside the Kafka and stage ones, each declared once
    /// (`hallmark config` lists them).
    public enum Variable {
        public static let logLevel = Setting<Logger.Level>(
            "HALLMARK_LOG_LEVEL", default: .info,
            accepted: "one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))",
            doc: "the least severe log line written", show: \.rawValue, parse: Logger.Level.init(rawValue:))
        public static let metricsTopic = Setting.topic(
            "HALLMARK_METRICS_TOPIC", default: TopicCatalogue.metrics.name, doc: "where metrics snapshots are published")
        public static let metricsInterval = Setting.milliseconds(
            "HALLMARK_METRICS_INTERVAL_MS", default: .seconds(10), in: 100...3_600_000,
            doc: "how often a metrics snapshot is published")
        // At least an hour: an inbox entry swept before its message stops being redelivered
        // would let that message's effects happen twice.
        public static let inboxRetentionHours = Setting.integer(
            "HALLMARK_INBOX_RETENTION_HOURS", default: 7 * 24, in: 1...87_600,
            doc: "hours a processed message's id is kept, against redelivery")
        // It can hold a whole request body, so it goes long before the id, which guards effects.
        public static let answerRetentionHours = Setting.integer(
            "HALLMARK_INBOX_ANSWER_RETENTION_HOURS", default: 24, in: 1...87_600,
            doc: "hours a processed message's answer is kept, to answer a redelivery alike")
        // Zero leaves the statistics to autovacuum alone (TableStatistics).
        public static let analyzeInterval = Setting.milliseconds(
            "HALLMARK_POSTGRES_ANALYZE_INTERVAL_MS", default: .seconds(5), in: 0...3_600_000,
            doc: "how often the service analyzes its own tables whose statistics lag their growth (0: never)")
        public static let auditTopic = Setting.topic(
            "HALLMARK_AUDIT_TOPIC", default: TopicCatalogue.audit.name, doc: "where audit records are published")

        /// Every variable every service reads (without Kafka's and the stages'), in the order
        /// `hallmark config` lists them.
        public static var all: [SettingDescription] {
            [
                logLevel.description, metricsTopic.description, metricsInterval.description,
                inboxRetentionHours.description, answerRetentionHours.description, analyzeInterval.description,
                auditTopic.description,
            ] + PrivacyTopics.variables + PostgresConfiguration.Variable.all + HealthFile.Settings.Variable.all
        }
    }
}

extension ServiceRunner {
    /// What every service reads at start-up beside Kafka and its stages: read in one place,
    /// by ``run(_:services:)`` and by `hallmark config --check` alike.
    struct Startup {
        var metricsTopic: String
        var metricsInterval: Duration
        var inboxRetention: Duration
        var answerRetention: Duration
        /// How often ``TableStatistics`` looks; zero: never.
        var analyzeInterval: Duration
        var healthFile: HealthFile.Settings?
        /// The health check's stall limit, for the `hallmark_stage_stalled` gauges even
        /// without a health file.
        var stallLimit: Duration
        /// The service's own URL (DESIGN §3: its own role) first, the shared one second; nil
        /// for a service without a database.
        var postgres: PostgresConfiguration?

        /// - Throws: ``ConfigurationError`` naming the first bad or missing variable.
        static func read(
            _ env: [String: String], service: String, database: Bool, poolSize: Setting<Int>
        ) throws(ConfigurationError) -> Startup {
            let settings = Settings(env)
            _ = try settings.value(Variable.logLevel)
            return Startup(
                metricsTopic: try settings.value(Variable.metricsTopic),
                metricsInterval: try settings.value(Variable.metricsInterval),
                inboxRetention: .seconds(try settings.value(Variable.inboxRetentionHours) * 3600),
                answerRetention: .seconds(try settings.value(Variable.answerRetentionHours) * 3600),
                analyzeInterval: try settings.value(Variable.analyzeInterval),
                healthFile: try HealthFile.Settings.fromEnvironment(env),
                stallLimit: try settings.value(HealthFile.Settings.Variable.stallLimit),
                postgres: database
                    ? try PostgresConfiguration.fromEnvironment(
                        env,
                        urlVariables: [
                            PostgresConfiguration.Variable.url(service: service).name, PostgresConfiguration.urlVariable,
                        ],
                        poolSize: poolSize, applicationName: "hallmark-\(service)") : nil)
        }
    }

    /// Reads what a service starting as `service` would (``Startup``, with its database and
    /// its pool size setting), and the audit and privacy topics: `hallmark config --check`.
    /// - Throws: ``ConfigurationError`` naming the first bad or missing variable.
    public static func checkEnvironment(
        _ environment: [String: String], service: String, poolSize: Setting<Int>? = nil
    ) throws(ConfigurationError) {
        _ = try Startup.read(
            environment, service: service, database: true,
            poolSize: poolSize ?? PostgresConfiguration.Variable.poolSize(service: service))
        _ = try Settings(environment).value(Variable.auditTopic)
        _ = try PrivacyTopics.fromEnvironment(environment)
    }
}
