import Foundation
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages

/// What a provisioned camera keeps (written by `hallmark provision`, mode 0600): its serial,
/// NUC hash, three tables and their master keys, and in certificate mode its certificate and
/// signing key. It makes token requests in either format.
package struct ProvisioningFile: Codable, Sendable, Hashable {
    package var deviceSerial: String
    /// hex, 32 bytes.
    package var nucHash: String
    package var tableAssignments: [Int]
    /// table id → hex master key.
    package var masterKeys: [String: String]
    /// Certificate mode (DESIGN BM-CERT), as the reference camera loads it: its X.509
    /// certificate and the issuing CA's, PEM, and its P-256 private key, PEM (PKCS #8), which
    /// never left it.
    package var deviceCertificate: String?
    package var certificateChain: String?
    package var devicePrivateKey: String?

    enum CodingKeys: String, CodingKey {
        case deviceSerial = "device_serial"
        case nucHash = "nuc_hash"
        case tableAssignments = "table_assignments"
        case masterKeys = "master_keys"
        case deviceCertificate = "device_certificate"
        case certificateChain = "certificate_chain"
        case devicePrivateKey = "device_private_key"
    }

    /// Creates a file from an opened PROV-1 answer.
    package init(answer: ProvisioningAnswer, nucHash: Data) {
        deviceSerial = answer.deviceSerial
        self.nucHash = Hex.encode(nucHash)
        tableAssignments = answer.tableAssignments
        masterKeys = answer.masterKeys
        deviceCertificate = answer.deviceCertificate
        certificateChain = answer.certificateChain
    }

    /// A reference-format token request (`camera_token`), with a fresh random nonce.
    /// `table` defaults to a random assigned table; `keyIndex` to a random index.
    package func referenceRequest(
        id: MessageID = .random(), table: Int? = nil, keyIndex: Int? = nil,
        master: Data? = nil
    ) throws -> (id: MessageID, token: BirthmarkCameraToken) {
        let tableId = try table ?? tableAssignments[SecureRandom.uniform(below: tableAssignments.count)]
        let key = try master ?? masterKey(tableId)
        let token = try BirthmarkCameraToken.seal(
            nucHash: Hex.decode(nucHash, length: 32), master: key,
            tableId: tableId, keyIndex: keyIndex ?? BirthmarkKeys.randomKeyIndex())
        return (id, token)
    }

    /// A mobile-format token over the three assigned tables, sealed with pair `used`; or, with
    /// `packing: .packed`, the packed reference format the Raspberry Pi camera sends (the real
    /// index at the used table's position, random indices at the others).
    package func mobileToken(used: Int? = nil, packing: BirthmarkMobileToken.Packing = .mobile) throws -> BirthmarkMobileToken {
        let pick = try used ?? SecureRandom.uniform(below: 3)
        let indices = try (0..<3).map { _ in try BirthmarkKeys.randomKeyIndex() }
        return try BirthmarkMobileToken.seal(
            nucHash: Hex.decode(nucHash, length: 32), master: masterKey(tableAssignments[pick]),
            tableReferences: tableAssignments, keyIndices: indices, used: pick, packing: packing)
    }

    /// A packed reference token (see ``mobileToken(used:packing:)``).
    package func packedToken(used: Int? = nil) throws -> BirthmarkMobileToken { try mobileToken(used: used, packing: .packed) }

    /// A table's master key.
    package func masterKey(_ table: Int) throws -> Data {
        guard let hex = masterKeys[String(table)] else { throw AuthorityClientError(.mismatch, "table \(table) is not assigned") }
        return try Hex.decode(hex, length: 32)
    }

    /// The request bytes for a reference token.
    package static func requestBytes(_ token: BirthmarkCameraToken, id: MessageID = .random()) throws -> [UInt8] {
        try JSONCoding.encode(Message(TokenRequest(token: .reference(token)), id: id))
    }

    /// The request bytes for a mobile token.
    package static func requestBytes(_ token: BirthmarkMobileToken, id: MessageID = .random()) throws -> [UInt8] {
        try JSONCoding.encode(Message(TokenRequest(token: .mobile(token)), id: id))
    }
}
