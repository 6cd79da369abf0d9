import Logging
import Synchronization

/// The current ``SecretSet``, replaced atomically on reload (SIGHUP) so in-flight messages
/// keep the set they started with.
public final class SecretStore: Sendable {
    private let current: Mutex<SecretSet>
    private let directory: String?
    private let environment: [String: String]
    private let variablePrefix: String
    /// Called after a successful reload (the key cache drops keys of changed secrets).
    private let onReload: @Sendable (SecretSet) -> Void

    /// Loads the secrets once; throws when they are unusable, so the service does not start.
    /// - Parameter variablePrefix: the service's variable prefix (see ``SecretSet``), e.g. `HALLMARK_SIGNER_`.
    public init(
        directory: String?, environment: [String: String], variablePrefix: String,
        onReload: @escaping @Sendable (SecretSet) -> Void = { _ in }
    ) throws {
        self.directory = directory
        self.environment = environment
        self.variablePrefix = variablePrefix
        self.onReload = onReload
        current = Mutex(try SecretSet.load(directory: directory, environment: environment, variablePrefix: variablePrefix))
    }

    /// A store over a fixed set (tests, tools).
    public init(_ set: SecretSet) {
        directory = nil
        environment = [:]
        variablePrefix = ""
        onReload = { _ in }
        current = Mutex(set)
    }

    /// The set in force now.
    public var secrets: SecretSet { current.withLock { $0 } }

    /// Reads the secrets again. On failure the previous set stays in force.
    @discardableResult
    public func reload(logger: Logger) -> Bool {
        do {
            let fresh = try SecretSet.load(directory: directory, environment: environment, variablePrefix: variablePrefix)
            current.withLock { $0 = fresh }
            onReload(fresh)
            logger.notice(
                "secrets reloaded",
                metadata: [
                    "versions": "\(fresh.versions.map(\.version))", "signing_version": "\(fresh.signing.version)",
                ])
            return true
        } catch {
            logger.error(
                "secrets not reloaded; the previous versions stay in force",
                metadata: ["error": "\((error as? SmileIDError)?.description ?? "unreadable secrets")"])
            return false
        }
    }
}
