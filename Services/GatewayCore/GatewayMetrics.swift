import HallmarkMessages
import HallmarkRuntime
import Metrics

/// The gateway's metrics, created once with fixed dimensions.
final class GatewayMetrics: Sendable {
    /// Encrypt requests by request type (`json`, `zip`, `multipart`).
    let encrypted: [EncryptResult.RequestType: Counter]
    /// Encrypt requests let through, by the policy's reason.
    let passedThrough: [EncryptResult.PassthroughReason: Counter]
    let decrypted: Counter
    /// Decrypt requests refused, by reason (`authentication_failed` is tampering or a wrong key).
    let decryptRejected: [DecryptResult.Reason: Counter]
    /// Encrypt requests answered `rejected`, by reason (the encrypt result schema's codes).
    let encryptRejections: [EncryptResult.RejectionReason: Counter]
    /// Plaintext bytes encrypted and decrypted.
    let encryptedBytes: Counter
    let decryptedBytes: Counter

    init() {
        let dims = [("service", "gateway")]
        encrypted = Counter.perCase(
            EncryptResult.RequestType.self, label: "hallmark_gateway_encrypted_total", dimensions: dims, dimension: "type")
        passedThrough = Counter.perCase(
            EncryptResult.PassthroughReason.self, label: "hallmark_gateway_passed_through_total", dimensions: dims)
        decrypted = Counter(label: "hallmark_gateway_decrypted_total", dimensions: dims)
        decryptRejected = Counter.perCase(
            DecryptResult.Reason.self, label: "hallmark_gateway_decrypt_rejected_total", dimensions: dims)
        encryptRejections = Counter.perCase(
            EncryptResult.RejectionReason.self, label: "hallmark_gateway_encrypt_rejected_total", dimensions: dims)
        encryptedBytes = Counter(label: "hallmark_gateway_encrypted_bytes_total", dimensions: dims)
        decryptedBytes = Counter(label: "hallmark_gateway_decrypted_bytes_total", dimensions: dims)
    }
}
