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

    enum CodingKeys: String, CodingKey {
        case deviceSerial = "device_serial"
        case devicePublicKey = "device_public_key"
        case nucHash = "nuc_hash"
        case deviceFamily = "device_family"
    }

    /// Creates a request.
    public init(
        deviceSerial: String, devicePublicKey: String, nucHash: String?,
        deviceFamily: String?
    ) {
        self.deviceSerial = deviceSerial
        self.devicePublicKey = devicePublicKey
        self.nucHash = nucHash
        self.deviceFamily = deviceFamily
    }

    /// Whether a serial is acceptable: 1–128 printable ASCII characters.
    public static func isValidSerial(_ serial: String) -> Bool {
        !serial.isEmpty && serial.utf8.count <= 128 && serial.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
