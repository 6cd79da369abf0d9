/// Why a message could not be read. The reason names fields, never their values.
public struct EnvelopeError: Error, Sendable, CustomStringConvertible, Equatable {
    public let code: RejectionReason
    public let reason: String

    public init(_ code: RejectionReason, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "EnvelopeError(\(code.rawValue): \(reason))" }
}
