import Foundation

/// BM-TOKEN reference format: AES-GCM of the raw 32-byte NUC hash under the
/// (table, index) key, as `{"ciphertext","auth_tag","nonce","table_id","key_index"}` (hex).
public struct BirthmarkCameraToken: Codable, Sendable, Hashable {
    /// Ciphertext, hex (64 digits for a 32-byte NUC hash).
    public var ciphertext: String
    /// GCM tag, hex (32 digits).
    public var authTag: String
    /// Nonce, hex (24 digits).
    public var nonce: String
    /// Key table id.
    public var tableId: Int
    /// Key index, 0...999.
    public var keyIndex: Int

    enum CodingKeys: String, CodingKey {
        case ciphertext, nonce
        case authTag = "auth_tag"
        case tableId = "table_id"
        case keyIndex = "key_index"
    }

    /// Creates a token from its fields.
    public init(ciphertext: String, authTag: String, nonce: String, tableId: Int, keyIndex: Int) {
        self.ciphertext = ciphertext
        self.authTag = authTag
        self.nonce = nonce
        self.tableId = tableId
        self.keyIndex = keyIndex
    }

    /// Camera side: seals a NUC hash. The nonce is random unless given (tests only).
    public static func seal(
        nucHash: some DataProtocol, master: some DataProtocol, tableId: Int, keyIndex: Int,
        nonce: Data? = nil
    ) throws(HallmarkCryptoError) -> BirthmarkCameraToken {
        guard nucHash.count == 32 else { throw HallmarkCryptoError(.invalidLength, "NUC hash must be 32 bytes") }
        let key = try BirthmarkKeys.derive(master: master, keyIndex: keyIndex, format: .reference)
        let sealed = try AESGCM256.seal(Data(nucHash), key: key, nonce: nonce)
        return BirthmarkCameraToken(
            ciphertext: Hex.encode(sealed.ciphertext), authTag: Hex.encode(sealed.tag),
            nonce: Hex.encode(sealed.nonce), tableId: tableId, keyIndex: keyIndex)
    }

    /// The decoded binary parts; `malformedHex` / `invalidLength` on bad fields.
    public func sealedParts() throws(HallmarkCryptoError) -> AESGCM256.Sealed {
        AESGCM256.Sealed(
            nonce: try Hex.decode(nonce, length: AESGCM256.nonceLength),
            ciphertext: try Hex.decode(ciphertext, length: 32),
            tag: try Hex.decode(authTag, length: AESGCM256.tagLength))
    }

    /// Authority side: the NUC hash, given the table's master key.
    public func open(master: some DataProtocol) throws(HallmarkCryptoError) -> Data {
        let key = try BirthmarkKeys.derive(master: master, keyIndex: keyIndex, format: .reference)
        return try AESGCM256.open(sealedParts(), key: key)
    }
}
