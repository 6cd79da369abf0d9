/// `hallmark.provision.request.v1`: a camera asks for its key tables.
public struct ProvisionRequest: MessageBody, Hashable {
    /// The schema name.
    public static let schemaName = "hallmark.provision.request.v1"

    /// The camera's serial (1–128 printable ASCII characters).
    public var deviceSerial: String
    /// The camera's X25519 public key, b64 (32 bytes).
    public var devicePublicKey: String
    /// The camera's NUC hash, hex (64 digits); tokens are attributed to the device by it.
    public var nucHash: String?
    /// Free-form family name.
    public var deviceFamily: String?
    /// The camera's P-256 signing key, b64 of its SubjectPublicKeyInfo (DER): with it, the
    /// authority issues the camera an X.509 certificate (DESIGN BM-CERT).
    public var deviceSigningKey: String?

    enum CodingKeys: String, CodingKey {
        case deviceSerial = "device_serial"
        case devicePublicKey = "device_public_key"
        case nucHash = "nuc_hash"
        case deviceFamily = "device_family"
        case deviceSigningKey = "device_signing_key"
    }

    /// Creates a request.
    public init(
        deviceSerial: String, devicePublicKey: String, nucHash: String?,
        deviceFamily: String?, deviceSigningKey: String? = nil
    ) {
        self.deviceSerial = deviceSerial
        self.devicePublicKey = devicePublicKey
        self.nucHash = nucHash
        self.deviceFamily = deviceFamily
        self.deviceSigningKey = deviceSigningKey
    }

    /// Whether a serial is acceptable: 1–128 printable ASCII characters.
    public static func isValidSerial(_ serial: String) -> Bool {
        !serial.isEmpty && serial.utf8.count <= 128 && serial.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
