import HallmarkMessages

/// The ENC-1 header names the gateway reads and writes (DESIGN §1).
public enum GatewayHeaders {
    public static let encryptionVersion = "SmileID-Encryption-Version"
    public static let requestID = "SmileID-Request-ID"
    public static let contentEncrypted = "SmileID-Content-Encrypted"
    /// Every header ENC-1 adds except `Content-Type`: what decryption removes again.
    public static let added = [encryptionVersion, requestID, contentEncrypted]
}

/// The gateway's own rejection reasons (the runtime's are in ``RejectionReason``).
public enum GatewayRejection {
    /// A `multipart/form-data` body that cannot be split into parts.
    public static let malformedMultipart = RejectionReason("malformed_multipart")
}
