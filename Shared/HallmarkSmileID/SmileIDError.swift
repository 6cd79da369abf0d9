/// A failure of the shared SmileID machinery: secrets and key derivation (zip uploads have
/// their own, `ZipError`, in HallmarkZip).
///
/// The description names what failed and why, never a secret value or a file's contents.
public struct SmileIDError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable {
        /// The secret folder or variables are unusable (none, no signing version, unreadable).
        case secrets
        /// The PBKDF2 pool is stopped or a derivation failed.
        case derivation
        /// A worker pool is stopped or out of resources: not the input's fault.
        case unavailable
    }

    public let code: Code
    /// A redacted explanation: names variables, versions, files and limits, never secrets.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "smileid \(code.rawValue) error: \(reason)" }
}
