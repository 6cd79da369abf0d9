import Foundation

/// PROV-1 plaintext: `{"device_serial","table_assignments":[3 ids],"master_keys":{"<id>":hex}}`.
public struct ProvisioningAnswer: Codable, Sendable, Hashable {
    /// The camera's serial.
    public var deviceSerial: String
    /// The three assigned table ids.
    public var tableAssignments: [Int]
    /// Table id (decimal string) → 32-byte master key, hex.
    public var masterKeys: [String: String]
    /// The camera's X.509 certificate and its issuing CA's, PEM, when it asked for one with a
    /// signing key (DESIGN BM-CERT). Sealed to the camera like the keys: a certificate names its
    /// device to whoever sees it.
    public var deviceCertificate: String?
    public var certificateChain: String?

    enum CodingKeys: String, CodingKey {
        case deviceSerial = "device_serial"
        case tableAssignments = "table_assignments"
        case masterKeys = "master_keys"
        case deviceCertificate = "device_certificate"
        case certificateChain = "certificate_chain"
    }

    /// Creates an answer.
    public init(deviceSerial: String, tableAssignments: [Int], masterKeys: [String: String]) {
        self.deviceSerial = deviceSerial
        self.tableAssignments = tableAssignments
        self.masterKeys = masterKeys
    }

    /// Creates an answer from binary master keys.
    public init(deviceSerial: String, masterKeys: [Int: Data]) {
        self.init(
            deviceSerial: deviceSerial, tableAssignments: masterKeys.keys.sorted(),
            masterKeys: Dictionary(uniqueKeysWithValues: masterKeys.map { (String($0.key), Hex.encode($0.value)) }))
    }

    /// The master keys decoded; `malformedHex`/`invalidLength`/`malformedJSON` on bad entries.
    public func decodedMasterKeys() throws(HallmarkCryptoError) -> [Int: Data] {
        var out: [Int: Data] = [:]
        for (id, hex) in masterKeys {
            guard let table = Int(id) else { throw HallmarkCryptoError(.malformedJSON, "master_keys has a non-numeric id") }
            out[table] = try Hex.decode(hex, length: 32)
        }
        return out
    }
}
