import Foundation

/// BM-TOKEN's two one-string formats, with three (table, index) pairs in `table_references` /
/// `key_indices` that the authority tries in turn:
/// - mobile-app: `encrypted_nuc_token = b64(nonce ‖ ciphertext ‖ tag)` (92 bytes) of the UTF-8
///   hex fingerprint (64 characters), keys derived with the mobile info;
/// - packed reference (the Raspberry Pi camera's client): `b64(ciphertext ‖ nonce ‖ tag)`
///   (60 bytes) of the raw 32-byte NUC hash, keys derived with the reference info.
/// The decoded length tells them apart (``packing``).
public struct BirthmarkMobileToken: Codable, Sendable, Hashable {
    /// How the sealed box is laid out.
    public enum Packing: Sendable, Hashable {
        /// `nonce 12 ‖ ciphertext 64 ‖ tag 16`: the iOS app.
        case mobile
        /// `ciphertext 32 ‖ nonce 12 ‖ tag 16`: the reference camera's packed token.
        case packed

        /// Decoded length of each layout.
        static let mobileLength = AESGCM256.nonceLength + 64 + AESGCM256.tagLength
        static let packedLength = 32 + AESGCM256.nonceLength + AESGCM256.tagLength
    }

    /// `b64(nonce ‖ ciphertext ‖ tag)` or `b64(ciphertext ‖ nonce ‖ tag)`.
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

    /// Seals a NUC hash with pair `used` (0...2) of the three given pairs: the iOS app's
    /// layout by default, or the reference camera's packed one (the other pairs should then be
    /// decoys).
    public static func seal(
        nucHash: some DataProtocol, master: some DataProtocol, tableReferences: [Int],
        keyIndices: [Int], used: Int, nonce: Data? = nil,
        packing: Packing = .mobile
    ) throws(HallmarkCryptoError) -> BirthmarkMobileToken {
        guard nucHash.count == 32 else { throw HallmarkCryptoError(.invalidLength, "NUC hash must be 32 bytes") }
        guard tableReferences.count == 3, keyIndices.count == 3, (0..<3).contains(used) else {
            throw HallmarkCryptoError(.invalidArgument, "these tokens carry exactly three (table, index) pairs")
        }
        let combined: Data
        switch packing {
        case .mobile:
            let key = try BirthmarkKeys.derive(master: master, keyIndex: keyIndices[used], format: .mobile)
            combined = try AESGCM256.seal(Data(Hex.encode(nucHash).utf8), key: key, nonce: nonce).combined
        case .packed:
            let key = try BirthmarkKeys.derive(master: master, keyIndex: keyIndices[used], format: .reference)
            let sealed = try AESGCM256.seal(Data(nucHash), key: key, nonce: nonce)
            combined = sealed.ciphertext + sealed.nonce + sealed.tag
        }
        return BirthmarkMobileToken(
            encryptedNucToken: Base64.encode(combined), tableReferences: tableReferences,
            keyIndices: keyIndices)
    }

    /// The (table, index) pairs, after shape checks.
    public func pairs() throws(HallmarkCryptoError) -> [(tableId: Int, keyIndex: Int)] {
        guard tableReferences.count == 3, keyIndices.count == 3 else {
            throw HallmarkCryptoError(.invalidArgument, "mobile tokens carry exactly three (table, index) pairs")
        }
        return Array(zip(tableReferences, keyIndices)).map { (tableId: $0.0, keyIndex: $0.1) }
    }

    /// The layout, by decoded length; `invalidLength` for any other length.
    public func packing() throws(HallmarkCryptoError) -> Packing {
        try unpack().packing
    }

    /// The decoded sealed box, whichever layout.
    public func sealedParts() throws(HallmarkCryptoError) -> AESGCM256.Sealed {
        try unpack().sealed
    }

    private func unpack() throws(HallmarkCryptoError) -> (packing: Packing, sealed: AESGCM256.Sealed) {
        let bytes = try Base64.decode(encryptedNucToken)
        switch bytes.count {
        case Packing.mobileLength:
            return (.mobile, try AESGCM256.Sealed(combined: bytes))
        case Packing.packedLength:
            let nonceEnd = 32 + AESGCM256.nonceLength
            return (
                .packed,
                AESGCM256.Sealed(
                    nonce: Data(bytes[32..<nonceEnd]), ciphertext: Data(bytes[0..<32]),
                    tag: Data(bytes[nonceEnd...]))
            )
        default:
            throw HallmarkCryptoError(.invalidLength, "token must be 60 (packed) or 92 (mobile) bytes")
        }
    }

    /// Opens with one pair's master key; returns the 32-byte NUC hash.
    public func open(master: some DataProtocol, keyIndex: Int) throws(HallmarkCryptoError) -> Data {
        let (packing, sealed) = try unpack()
        switch packing {
        case .mobile:
            let key = try BirthmarkKeys.derive(master: master, keyIndex: keyIndex, format: .mobile)
            let text = try AESGCM256.open(sealed, key: key)
            return try Hex.decode(String(decoding: text, as: UTF8.self), length: 32)
        case .packed:
            let key = try BirthmarkKeys.derive(master: master, keyIndex: keyIndex, format: .reference)
            return try AESGCM256.open(sealed, key: key)  // 32 bytes: the ciphertext is
        }
    }
}
