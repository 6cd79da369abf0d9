/// Why a certificate bundle's certificate or signature is refused (DESIGN BM-CERT): a stable
/// code a submission's answer carries as its `reason`. Never holds the certificate or any of
/// its values.
public enum CertificateRefusal: String, Error, Sendable, CaseIterable, CustomStringConvertible {
    /// Not a certificate Hallmark can read: not base64, neither DER nor PEM (nor PEM with
    /// anything around it), truncated, or not a P-256 key.
    case invalidCertificate = "invalid_certificate"
    /// It reads, but no trusted manufacturer CA signed it (another CA, self-signed, a CA's
    /// constraints broken).
    case untrustedCertificate = "untrusted_certificate"
    /// Outside its validity period: expired, or not valid yet.
    case certificateExpired = "certificate_expired"
    /// The bundle signature is not the certificate key's over either signed form.
    case badSignature = "bad_signature"

    public var description: String { rawValue }
}
