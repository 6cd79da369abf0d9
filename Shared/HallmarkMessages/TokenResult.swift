import HallmarkCore

/// `hallmark.token.result.v1`: PASS (`valid: true`) or FAIL with one reason. Nothing else:
/// never the device, its serial or its NUC hash.
public struct TokenResult: MessageBody, Hashable {
    /// The schema name.
    public static let schemaName = "hallmark.token.result.v1"

    public var valid: Bool
    public var reason: ValidationReason?

    /// PASS without a reason, else FAIL with it.
    public init(reason: ValidationReason?) {
        self.valid = reason == nil
        self.reason = reason
    }
}
