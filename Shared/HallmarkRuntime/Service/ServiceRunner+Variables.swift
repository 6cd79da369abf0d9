import HallmarkCore
import HallmarkPostgres
import Logging

extension ServiceRunner {
    /// The variables every service reads beside the Kafka and stage ones, each declared once
    /// (`hallmark config` lists them).
    public enum Variable {
        public static let logLevel = Setting<Logger.Level>(
            "HALLMARK_LOG_LEVEL", default: .info,
            accepted: "one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))",
            doc: "the least severe log line written", show: \.rawValue, parse: Logger.Level.init(rawValue:))
        public static let metricsTopic = Setting.topic(
            "HALLMARK_METRICS_TOPIC", default: "hallmark.metrics", doc: "where metrics snapshots are published")
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
        public static let auditTopic = Setting.topic(
            "HALLMARK_AUDIT_TOPIC", default: "hallmark.audit", doc: "where audit records are published")

        /// Every variable every service reads (without Kafka's and the stages'), in the order
        /// `hallmark config` lists them.
        public static var all: [SettingDescription] {
            [
                logLevel.description, metricsTopic.description, metricsInterval.description,
                inboxRetentionHours.description, answerRetentionHours.description, auditTopic.description,
            ] + PrivacyTopics.Variable.all + PostgresConfiguration.Variable.all + HealthFile.Settings.Variable.all
        }
    }
}

extension ServiceRunner {
    /// Reads every variable of ``Variable`` as a service starting as `service` would, and its
    /// PostgreSQL URL (its own, else the shared one): `hallmark config --check`.
    /// - Throws: ``ConfigurationError`` naming the first bad or missing variable.
    public static func checkEnvironment(_ environment: [String: String], service: String) throws(ConfigurationError) {
        let settings = Settings(environment)
        _ = try settings.value(Variable.logLevel)
        _ = try settings.value(Variable.metricsTopic)
        _ = try settings.value(Variable.metricsInterval)
        _ = try settings.value(Variable.inboxRetentionHours)
        _ = try settings.value(Variable.answerRetentionHours)
        _ = try settings.value(Variable.auditTopic)
        _ = try PrivacyTopics.fromEnvironment(environment)
        _ = try HealthFile.Settings.fromEnvironment(environment)
        _ = try PostgresConfiguration.fromEnvironment(
            environment,
            urlVariables: [PostgresConfiguration.Variable.url(service: service).name, PostgresConfiguration.urlVariable])
    }
}
