/// `hallmark.device.result.v1`: the authority's answer to a ``DeviceRequest``: PASS (`valid:
/// true`), or FAIL with `malformed`, `unknown_device` or `blacklisted`. Never the device.
public struct DeviceResult: MessageBody, Hashable {
    public static let schemaName = "hallmark.device.result.v1"

    public var valid: Bool
    /// One of the three reasons its schema allows (``ValidationReason/malformed``,
    /// `.token(.unknownDevice)`, `.token(.blacklisted)`).
    public var reason: ValidationReason?

    /// PASS without a reason, else FAIL with it.
    public init(reason: ValidationReason?) {
        valid = reason == nil
        self.reason = reason
    }
}
