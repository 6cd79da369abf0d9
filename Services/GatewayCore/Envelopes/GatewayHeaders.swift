import HallmarkMessages

/// The ENC-1 header names the gateway reads and writes (DESIGN §1).
package enum GatewayHeaders {
    package static let encryptionVersion = "SmileID-Encryption-Version"
    package static let requestID = "SmileID-Request-ID"
    package static let contentEncrypted = "SmileID-Content-Encrypted"
    /// Every header ENC-1 adds except `Content-Type`: what decryption removes again.
    package static let added = [encryptionVersion, requestID, contentEncrypted]
}

/// The gateway's own rejection reasons (the runtime's are in ``RejectionReason``).
package enum GatewayRejection {
    /// A `multipart/form-data` body that cannot be split into parts.
    package static let malformedMultipart = RejectionReason("malformed_multipart")
}
