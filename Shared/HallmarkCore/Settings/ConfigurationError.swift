/// A setting that is missing or malformed. Names the variable, never its value (it may be a
/// secret or a connection string with a password).
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The variable, e.g. `HALLMARK_MAX_IN_FLIGHT`.
    public let variable: String
    /// What is wrong with it, e.g. `must be an integer in 1...65536`.
    public let reason: String

    public init(variable: String, reason: String) {
        self.variable = variable
        self.reason = reason
    }

    public var description: String { "\(variable): \(reason)" }
}
