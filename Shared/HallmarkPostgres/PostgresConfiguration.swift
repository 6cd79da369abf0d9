import Foundation
import HallmarkCore

/// How to reach PostgreSQL and how many connections a ``PostgresPool`` may open.
///
/// The connection string may contain a password; it is kept private and every description of
/// the configuration is redacted (``redactedConnectionString``). Prefer a passfile
/// (`?passfile=/path/role.pgpass`, pgpass format, mode 0600) to a password in the string, as
/// `deploy/local/env.sh` does: then the string holds no secret at all.
public struct PostgresConfiguration: Sendable, CustomStringConvertible, CustomReflectable {
    /// The connection URL (`postgresql://user@host:port/db?…`) or `key=value` conninfo, as given.
    let connectionString: String
    /// Maximum number of open connections in a pool. Default 4.
    public var poolSize: Int
    /// How long to wait for a connection to be established. Default 10 seconds; libpq works in
    /// whole seconds and treats anything below 2 as 2.
    public var connectTimeout: Duration
    /// Reported to the server as `application_name` (visible in `pg_stat_activity`). Default:
    /// the connection string's `application_name`, else `hallmark`.
    public var applicationName: String
    /// When true, cancelling the task that awaits a statement sends the server a cancel request
    /// (and a task cancelled before the statement starts doesn't send it); the statement then
    /// fails with ``PostgresError/isQueryCanceled``. Default false: statements run to completion
    /// even in cancelled tasks, so shutdown can't turn into failed work. Clean-up (ROLLBACK,
    /// COMMIT after a completed body, migration unlock) always runs to completion.
    public var cancelsStatementsOnTaskCancellation: Bool
    /// The connection string with every secret (`password`, a URL's `user:password@`,
    /// `sslpassword`) replaced by `***`, safe to log.
    public let redactedConnectionString: String

    /// The default pool size.
    public static let defaultPoolSize = 4
    /// The default connect timeout.
    public static let defaultConnectTimeout: Duration = .seconds(10)
    /// The environment variable holding the connection URL.
    public static let urlVariable = Variable.url.name
    /// The environment variable holding the pool size.
    public static let poolSizeVariable = Variable.poolSize.name

    /// The variables, each declared once (`hallmark config` lists them).
    public enum Variable {
        public static let url = Setting.optionalText(
            "HALLMARK_POSTGRES_URL", doc: "the PostgreSQL connection URL when the service's own is not set"
        ).secret()
        public static let poolSize = Setting.integer(
            "HALLMARK_POSTGRES_POOL_SIZE", default: PostgresConfiguration.defaultPoolSize, in: 1...1000,
            doc: "connections a service keeps")

        /// A service's own connection URL (DESIGN §3: its own role), read before ``url``:
        /// `HALLMARK_SIGNER_POSTGRES_URL` for `signer`.
        public static func url(service: String) -> Setting<String?> {
            let name = service.uppercased().replacingOccurrences(of: "-", with: "_")
            return url.renamed(
                "HALLMARK_\(name)_POSTGRES_URL", doc: "the \(service)'s PostgreSQL connection URL, as its own role")
        }

        /// A service's own pool size (`HALLMARK_AUTHORITY_POSTGRES_POOL_SIZE` for `authority`),
        /// read before ``poolSize``; its default is the service's, taken when neither is set.
        public static func poolSize(
            service: String, default value: Int = PostgresConfiguration.defaultPoolSize
        )
            -> Setting<Int>
        {
            let name = service.uppercased().replacingOccurrences(of: "-", with: "_")
            return poolSize.renamed(
                "HALLMARK_\(name)_POSTGRES_POOL_SIZE", default: value,
                doc: "connections the \(service) keeps; when unset, HALLMARK_POSTGRES_POOL_SIZE, else this default")
        }

        public static var all: [SettingDescription] { [url.description, poolSize.description] }
    }

    /// Validates a connection URL or conninfo string (libpq's own parser).
    /// - Throws: ``PostgresError/Code/invalidConfiguration`` if libpq cannot parse it or a value
    ///   is out of range. The error never echoes the string.
    public init(
        url: String,
        poolSize: Int = PostgresConfiguration.defaultPoolSize,
        connectTimeout: Duration? = nil,
        applicationName: String? = nil,
        cancelsStatementsOnTaskCancellation: Bool = false
    ) throws(PostgresError) {
        let options = try ConnectionOptions.parse(url)
        guard poolSize >= 1 else {
            throw PostgresError(code: .invalidConfiguration, message: "pool size must be at least 1")
        }
        self.connectionString = url
        self.poolSize = poolSize
        self.connectTimeout =
            connectTimeout
            ?? options["connect_timeout"].flatMap { Int($0) }.map { .seconds($0) }
            ?? Self.defaultConnectTimeout
        self.applicationName = applicationName ?? options["application_name"] ?? "hallmark"
        self.cancelsStatementsOnTaskCancellation = cancelsStatementsOnTaskCancellation
        self.redactedConnectionString = options.redacted
    }

    /// Reads the connection URL from the first of `urlVariables` that is set (default
    /// `HALLMARK_POSTGRES_URL`; a service passes its own first, e.g.
    /// `HALLMARK_SIGNER_POSTGRES_URL`) and the pool size: `poolSize`'s own variable when it has
    /// one and it is set (``Variable/poolSize(service:default:)``), else
    /// `HALLMARK_POSTGRES_POOL_SIZE` when set, else `poolSize`'s default (1–1000).
    /// - Throws: ``ConfigurationError`` naming the variable, never its value.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        urlVariables: [String] = [urlVariable],
        poolSize poolSizeSetting: Setting<Int> = Variable.poolSize,
        applicationName: String? = nil
    ) throws(ConfigurationError) -> PostgresConfiguration {
        let settings = Settings(environment)
        guard let (variable, url) = urlVariables.lazy.compactMap({ name in settings.string(name).map { (name, $0) } }).first
        else {
            throw ConfigurationError(variable: urlVariables.first ?? urlVariable, reason: "is not set")
        }
        var poolSize = try settings.valueIfSet(poolSizeSetting)
        if poolSize == nil { poolSize = try settings.valueIfSet(Variable.poolSize) }
        do {
            return try PostgresConfiguration(
                url: url, poolSize: poolSize ?? poolSizeSetting.defaultValue, applicationName: applicationName)
        } catch {
            throw ConfigurationError(variable: variable, reason: error.message)
        }
    }

    /// Whole seconds for libpq's `connect_timeout`, rounded up.
    var connectTimeoutSeconds: Int {
        let (seconds, attoseconds) = connectTimeout.components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }

    public var description: String {
        "PostgresConfiguration(\(redactedConnectionString), poolSize: \(poolSize), "
            + "connectTimeout: \(connectTimeout), applicationName: \(applicationName))"
    }

    /// Keeps `dump` and debuggers from showing the raw connection string.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "connection": redactedConnectionString, "poolSize": poolSize,
                "connectTimeout": connectTimeout, "applicationName": applicationName,
            ])
    }
}
