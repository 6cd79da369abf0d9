import Foundation
import HallmarkCore
import Logging
import ServiceLifecycle

/// Writes the process's health (``HealthMonitor``) to a file every interval, for a container
/// health check or a Kubernetes exec probe (`deploy/containers/healthcheck`): the file's age
/// says the process is alive and looping, its `status` whether its stages make progress.
///
/// ```json
/// {"checked_at":"…","instance":"signer-7f","problems":[],"service":"signer","status":"ok"}
/// ```
/// `status` is `ok`, `stalled` (with `problems`, one line each: a consumer that has not polled,
/// or messages in flight and none finished, for longer than the stall limit) or, once the
/// process stops, `stopping`. Each write goes to a temporary file that is renamed over the last,
/// so a reader never sees half a file. The problems name stages and counts, never a message.
public struct HealthFile: Service {
    /// | variable | default | meaning |
    /// |---|---|---|
    /// | `HALLMARK_HEALTH_FILE` | — (no file) | the file, an absolute path (the images: `/tmp/hallmark-health.json`) |
    /// | `HALLMARK_HEALTH_INTERVAL_MS` | 5000 | how often it is written |
    /// | `HALLMARK_HEALTH_STALL_SECONDS` | 300 | how long a consumer may not poll, or in-flight messages not finish, before `stalled` |
    public struct Settings: Sendable, Equatable {
        public var path: String
        public var interval: Duration = Variable.interval.defaultValue
        public var stallLimit: Duration = Variable.stallLimit.defaultValue

        public init(path: String) { self.path = path }

        /// The variables, each declared once (`hallmark config` lists them).
        public enum Variable {
            public static let path = Setting<String?>(
                "HALLMARK_HEALTH_FILE", default: nil, accepted: "an absolute file path",
                doc: "where the health report is written (unset: none; the images: `/tmp/hallmark-health.json`)",
                show: { $0 ?? "" },
                // Double optional: `.none` refuses the text, `.some(path)` takes it.
                parse: { raw -> String?? in raw.hasPrefix("/") && !raw.hasSuffix("/") ? .some(raw) : .none })
            public static let interval = Setting.milliseconds(
                "HALLMARK_HEALTH_INTERVAL_MS", default: .seconds(5), in: 100...600_000,
                doc: "how often the health report is written")
            public static let stallLimit = Setting.seconds(
                "HALLMARK_HEALTH_STALL_SECONDS", default: .seconds(300), in: 1...86_400,
                doc: "how long a consumer may not poll, or in-flight messages not finish, before `stalled`")

            public static var all: [SettingDescription] { [path.description, interval.description, stallLimit.description] }
        }

        /// The settings, or nil when `HALLMARK_HEALTH_FILE` is not set.
        public static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> Settings? {
            let settings = HallmarkCore.Settings(env)
            guard let path = try settings.value(Variable.path) else { return nil }
            var s = Settings(path: path)
            s.interval = try settings.value(Variable.interval)
            s.stallLimit = try settings.value(Variable.stallLimit)
            return s
        }
    }

    struct Report: Codable, Equatable {
        var status: String
        var checkedAt: String
        var service: String
        var instance: String
        var problems: [String]

        enum CodingKeys: String, CodingKey {
            case status, service, instance, problems
            case checkedAt = "checked_at"
        }
    }

    let settings: Settings
    let monitor: HealthMonitor
    let service: String
    let instance: String
    let logger: Logger

    public init(settings: Settings, monitor: HealthMonitor, service: String, instance: String, logger: Logger) {
        self.settings = settings
        self.monitor = monitor
        self.service = service
        self.instance = instance
        self.logger = logger
    }

    public func run() async throws {
        // Logged when the set of problems changes (not their growing durations).
        var reported: [String] = []
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let problems = monitor.check(stallLimit: settings.stallLimit)
            let kinds = problems.map { "\($0.stage) \($0.kind)" }
            if kinds != reported {
                if problems.isEmpty {
                    logger.info("healthy again")
                } else {
                    logger.warning("unhealthy", metadata: ["problems": "\(problems.map(\.description).joined(separator: "; "))"])
                }
                reported = kinds
            }
            write(problems.isEmpty ? "ok" : "stalled", problems.map(\.description))
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: settings.interval) }
        }
        write("stopping", [])
    }

    private func write(_ status: String, _ problems: [String]) {
        let report = Report(
            status: status, checkedAt: Timestamp.now().text, service: service, instance: instance,
            problems: problems)
        do {
            // .atomic: a temporary file in the same folder, renamed over the old one.
            try Data(JSONCoding.encode(report)).write(to: URL(fileURLWithPath: settings.path), options: .atomic)
        } catch {
            // A file not written ages, and the health check then fails: say why, once a round.
            logger.warning("health file not written", metadata: ["error": "\(ErrorPolicy.safeDescription(error))"])
        }
    }
}
