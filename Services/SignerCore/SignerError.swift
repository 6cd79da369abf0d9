/// A failure of the signer's own machinery (configuration, secrets, key derivation).
///
/// The description names what failed and why, never a secret value or a path's contents.
public struct SignerError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable {
        /// A `HALLMARK_SIGNER_…` setting is malformed.
        case configuration
        /// The secret folder or variables are unusable (none, no signing version, unreadable).
        case secrets
        /// The PBKDF2 pool is stopped or a derivation failed.
        case derivation
    }

    public let code: Code
    /// A redacted explanation: names variables, versions and files, never secret values.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "signer \(code.rawValue) error: \(reason)" }
}
