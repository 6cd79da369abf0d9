/// An authority failure: a stable code, a reason that names things but never holds a
/// secret, key, NUC hash or token.
package struct AuthorityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable failure codes.
    package enum Code: String, Sendable, Hashable {
        /// A configuration variable or secrets file is missing or invalid.
        case configuration
        /// A sealed value did not open (wrong KEK, moved row, tampering).
        case sealedValue = "sealed_value"
        /// Not enough usable key tables to assign.
        case noTables = "no_tables"
        /// A stored row breaks the authority's invariants.
        case corruptRow = "corrupt_row"
        /// A named device or table does not exist.
        case notFound = "not_found"
        /// Bad command-line or admin input.
        case invalidInput = "invalid_input"
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
