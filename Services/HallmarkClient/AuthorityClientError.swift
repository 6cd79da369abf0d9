/// A failure on the CLI side of the authority (provisioning, traffic, bench): a code and a
/// reason that never holds key material.
package struct AuthorityClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable failure codes.
    package enum Code: String, Sendable, Hashable {
        /// No answer or assignment in time.
        case timeout
        /// An answer that does not fit its request.
        case mismatch
        /// A file could not be written.
        case io
        /// Anything else that made the run pointless.
        case failed
    }

    /// The failure code.
    package let code: Code
    /// A redacted explanation.
    package let reason: String

    /// Creates an error.
    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package var description: String { "\(code.rawValue): \(reason)" }
}
