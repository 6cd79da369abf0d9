/// The one error type of HallmarkCrypto: a stable machine-readable `code` plus a short
/// human `reason`. Reasons never contain secrets, keys or plaintext.
public struct HallmarkCryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable error codes; the raw values appear in CLI output and logs.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case malformedBase64 = "malformed_base64"
        case malformedHex = "malformed_hex"
        case malformedJSON = "malformed_json"
        case invalidLength = "invalid_length"
        case invalidArgument = "invalid_argument"
        case invalidKey = "invalid_key"
        case duplicateHeader = "duplicate_header"
        case invalidHeaderName = "invalid_header_name"
        case authenticationFailed = "authentication_failed"
        case weakSharedSecret = "weak_shared_secret"
        case unsupportedVersion = "unsupported_version"
        case unknownKeyVersion = "unknown_key_version"
        case randomUnavailable = "random_unavailable"
        case derivationFailed = "derivation_failed"
        case invalidProof = "invalid_proof"
        case malformedNote = "malformed_note"
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// Why, for humans; free of secret material.
    public let reason: String

    /// Creates an error.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }
}
