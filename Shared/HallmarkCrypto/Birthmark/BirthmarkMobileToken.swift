import Foundation

/// BM-TOKEN mobile-app format: `encrypted_nuc_token = b64(nonce ‖ ciphertext ‖ tag)` of the
/// UTF-8 hex fingerprint (64 characters) under one of three (table, index) pairs given in
/// `table_references` / `key_indices`; the authority tries the three.
public struct BirthmarkMobileToken: Codable, Sendable, Hashable {
    /// `b64(nonce ‖ ciphertext ‖ tag)`.
    public var encryptedNucToken: String
    /// Three key-table ids.
    public var tableReferences: [Int]
    /// Three key indices, pairwise with `tableReferences`.
    public var keyIndices: [Int]

    enum CodingKeys: String, CodingKey {
        case encryptedNucToken = "encrypted_nuc_token"
        case tableReferences = "table_references"
        case keyIndices = "key_indices"
    }

    /// Creates a token from its fields.
    public init(encryptedNucToken: String, tableReferences: [Int], keyIndices: [Int]) {
        self.encryptedNucToken = encryptedNucToken
        self.tableReferences = tableReferences
        self.keyIndices = keyIndices
    }

    /// App side: seals a NUC hash with pair `used` (0...2) of the three given pairs.
    public static func seal(nucHash: some DataProtocol, master: some DataProtocol, tableReferences: [Int],
                            keyIndices: [Int], used: Int, nonce: Data? = nil) throws(HallmarkCryptoError)
        -> BirthmarkMobileToken {
        guard nucHash.count == 32 else { throw HallmarkCryptoError(.invalidLength, "NUC hash must be 32 bytes") }
        guard tableReferences.count == 3, keyIndices.count == 3, (0..<3).contains(used) else {
            throw HallmarkCryptoError(.invalidArgument, "mobile tokens carry exactly three (table, index) pairs")
        }
        let key = try BirthmarkKeys.derive(master: master, keyIndex: keyIndices[used], format: .mobile)
        let sealed = try AESGCM256.seal(Data(Hex.encode(nucHash).utf8), key: key, nonce: nonce)
        return BirthmarkMobileToken(encryptedNucToken: Base64.encode(sealed.combined),
                                    tableReferences: tableReferences, keyIndices: keyIndices)
    }

    /// The (table, index) pairs, after shape checks.
    public func pairs() throws(HallmarkCryptoError) -> [(tableId: Int, keyIndex: Int)] {
        guard tableReferences.count == 3, keyIndices.count == 3 else {
            throw HallmarkCryptoError(.invalidArgument, "mobile tokens carry exactly three (table, index) pairs")
        }
        return Array(zip(tableReferences, keyIndices)).map { (tableId: $0.0, keyIndex: $0.1) }
    }

    /// The decoded sealed box (nonce 12 ‖ ciphertext 64 ‖ tag 16).
    public func sealedParts() throws(HallmarkCryptoError) -> AESGCM256.Sealed {
        let bytes = try Base64.decode(encryptedNucToken)
        guard bytes.count == AESGCM256.nonceLength + 64 + AESGCM256.tagLength else {
            throw HallmarkCryptoError(.invalidLength, "mobile token must hold a 64-character fingerprint")
        }
        return try AESGCM256.Sealed(combined: bytes)
    }

    /// Opens with one pair's master key; returns the 32-byte NUC hash.
    public func open(master: some DataProtocol, keyIndex: Int) throws(HallmarkCryptoError) -> Data {
        let key = try BirthmarkKeys.derive(master: master, keyIndex: keyIndex, format: .mobile)
        let text = try AESGCM256.open(sealedParts(), key: key)
        return try Hex.decode(String(decoding: text, as: UTF8.self), length: 32)
    }
}
