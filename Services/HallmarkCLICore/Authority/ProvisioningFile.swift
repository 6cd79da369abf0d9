import AuthorityCore
import Foundation
import HallmarkCrypto
import HallmarkEnvelope

/// What a provisioned camera keeps (written by `hallmark provision`, mode 0600): its serial,
/// NUC hash, three tables and their master keys. It makes token requests in either format.
public struct ProvisioningFile: Codable, Sendable, Hashable {
    public var deviceSerial: String
    /// hex, 32 bytes.
    public var nucHash: String
    public var tableAssignments: [Int]
    /// table id → hex master key.
    public var masterKeys: [String: String]

    enum CodingKeys: String, CodingKey {
        case deviceSerial = "device_serial"
        case nucHash = "nuc_hash"
        case tableAssignments = "table_assignments"
        case masterKeys = "master_keys"
    }

    /// Creates a file from an opened PROV-1 answer.
    public init(answer: ProvisioningAnswer, nucHash: Data) {
        deviceSerial = answer.deviceSerial
        self.nucHash = Hex.encode(nucHash)
        tableAssignments = answer.tableAssignments
        masterKeys = answer.masterKeys
    }

    /// A reference-format token request (`camera_token`), with a fresh random nonce.
    /// `table` defaults to a random assigned table; `keyIndex` to a random index.
    public func referenceRequest(id: String = MessageID.random(), table: Int? = nil, keyIndex: Int? = nil,
                                 master: Data? = nil) throws -> (id: String, token: BirthmarkCameraToken) {
        let tableId = try table ?? tableAssignments[SecureRandom.uniform(below: tableAssignments.count)]
        let key = try master ?? masterKey(tableId)
        let token = try BirthmarkCameraToken.seal(nucHash: Hex.decode(nucHash, length: 32), master: key,
                                                  tableId: tableId, keyIndex: keyIndex ?? BirthmarkKeys.randomKeyIndex())
        return (id, token)
    }

    /// A mobile-format token over the three assigned tables, sealed with pair `used`.
    public func mobileToken(used: Int? = nil) throws -> BirthmarkMobileToken {
        let pick = try used ?? SecureRandom.uniform(below: 3)
        let indices = try (0..<3).map { _ in try BirthmarkKeys.randomKeyIndex() }
        return try BirthmarkMobileToken.seal(nucHash: Hex.decode(nucHash, length: 32),
                                             master: masterKey(tableAssignments[pick]),
                                             tableReferences: tableAssignments, keyIndices: indices, used: pick)
    }

    /// A table's master key.
    public func masterKey(_ table: Int) throws -> Data {
        guard let hex = masterKeys[String(table)] else { throw AuthorityClientError(.mismatch, "table \(table) is not assigned") }
        return try Hex.decode(hex, length: 32)
    }

    /// The request bytes for a reference token.
    public static func requestBytes(_ token: BirthmarkCameraToken, id: String = MessageID.random()) throws -> [UInt8] {
        let body = TokenRequestBody(id: id, producedAt: Timestamp.now(), cameraToken: token)
        return try JSONCoding.encode(body)
    }

    /// The request bytes for a mobile token.
    public static func requestBytes(_ token: BirthmarkMobileToken, id: String = MessageID.random()) throws -> [UInt8] {
        let body = TokenRequestBody(id: id, producedAt: Timestamp.now(), encryptedNucToken: token.encryptedNucToken,
                                    tableReferences: token.tableReferences, keyIndices: token.keyIndices)
        return try JSONCoding.encode(body)
    }
}

/// `hallmark.token.request.v1` as the CLI writes it.
public struct TokenRequestBody: Codable, Sendable, Hashable {
    public var schema = TokenResult.requestSchema
    public var id: String
    public var producedAt: String
    public var cameraToken: BirthmarkCameraToken?
    public var encryptedNucToken: String?
    public var tableReferences: [Int]?
    public var keyIndices: [Int]?

    enum CodingKeys: String, CodingKey {
        case schema, id
        case producedAt = "produced_at"
        case cameraToken = "camera_token"
        case encryptedNucToken = "encrypted_nuc_token"
        case tableReferences = "table_references"
        case keyIndices = "key_indices"
    }

    public init(id: String, producedAt: String, cameraToken: BirthmarkCameraToken? = nil,
                encryptedNucToken: String? = nil, tableReferences: [Int]? = nil, keyIndices: [Int]? = nil) {
        self.id = id
        self.producedAt = producedAt
        self.cameraToken = cameraToken
        self.encryptedNucToken = encryptedNucToken
        self.tableReferences = tableReferences
        self.keyIndices = keyIndices
    }
}
