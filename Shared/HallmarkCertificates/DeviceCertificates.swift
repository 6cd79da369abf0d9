import SwiftASN1
import X509

/// Names shared by Hallmark's device certificates (DESIGN BM-CERT).
public enum DeviceCertificates {
    /// The extension the reference puts the device secret in, in clear. Hallmark puts there
    /// only a handle sealed to its authority, bound to the certificate's serial: the
    /// certificate names no device to anyone but the authority.
    public static let handleOID: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 99999, 1]

    /// The organisation Hallmark's manufacturer CA names.
    public static let organization = "Hallmark"

    /// A certificate serial as lower-case hex: what a handle is bound to.
    public static func hex(_ serial: Certificate.SerialNumber) -> String {
        serial.bytes.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
    }
}
