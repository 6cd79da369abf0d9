/// A failure of the zip reader: the upload's fault, or the reader's.
///
/// The description names what failed and why (a limit, an offset), never a file's contents.
public struct ZipError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is.
    public enum Code: String, Sendable {
        /// The upload is unreadable, too large, or breaks a limit: the input's fault, and final
        /// (a verify request gets `malformed`).
        case invalid
        /// The worker pool is stopped or out of resources: not the input's fault.
        case unavailable
    }

    public let code: Code
    /// A redacted explanation: names limits and entries, never contents.
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "zip \(code.rawValue) error: \(reason)" }
}
