import Foundation

/// REST: values at rest sealed with AES-256-GCM under a versioned KEK.
///
/// Sealed form: `0x01 ‖ u32be(kekVersion) ‖ nonce (12) ‖ ciphertext ‖ tag (16)`.
/// Associated data: `utf8("hallmark-rest-v1") ‖ first 5 bytes of the sealed form ‖
/// lengthPrefixed(table, column, rowId)`, so the version byte, KEK version and location
/// are all authenticated. Random nonces: rotate a KEK well before 2^32 seals under it.
public enum AtRestSeal {
    /// Format byte of the sealed form.
    public static let formatVersion: UInt8 = 1
    /// AAD domain prefix.
    public static let domain = Data("hallmark-rest-v1".utf8)
    static let headerLength = 5

    /// Seals `plaintext` under the current KEK.
    public static func seal(
        _ plaintext: Data, context: AtRestContext, keyring: KeyEncryptionKeyring,
        nonce: Data? = nil
    ) throws(HallmarkCryptoError) -> Data {
        let version = keyring.currentVersion
        var header = Data([formatVersion])
        withUnsafeBytes(of: version.bigEndian) { header.append(contentsOf: $0) }
        let sealed = try AESGCM256.seal(
            plaintext, key: keyring.key(version: version), nonce: nonce,
            aad: aad(header: header, context: context))
        return header + sealed.combined
    }

    /// The KEK version a sealed value was made with.
    public static func kekVersion(of sealed: Data) throws(HallmarkCryptoError) -> UInt32 {
        guard sealed.count >= headerLength + AESGCM256.nonceLength + AESGCM256.tagLength else {
            throw HallmarkCryptoError(.invalidLength, "sealed value too short")
        }
        let bytes = [UInt8](sealed.prefix(headerLength))
        guard bytes[0] == formatVersion else {
            throw HallmarkCryptoError(.unsupportedVersion, "unknown sealed-value format")
        }
        return bytes[1...4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Opens a sealed value with whichever KEK version it names.
    public static func open(
        _ sealed: Data, context: AtRestContext,
        keyring: KeyEncryptionKeyring
    ) throws(HallmarkCryptoError) -> Data {
        let version = try kekVersion(of: sealed)
        let header = Data(sealed.prefix(headerLength))
        return try AESGCM256.open(
            AESGCM256.Sealed(combined: sealed.dropFirst(headerLength)),
            key: keyring.key(version: version), aad: aad(header: header, context: context))
    }

    /// Re-seals under the current KEK (returns the input when it already uses it).
    public static func reseal(
        _ sealed: Data, context: AtRestContext,
        keyring: KeyEncryptionKeyring
    ) throws(HallmarkCryptoError) -> Data {
        if try kekVersion(of: sealed) == keyring.currentVersion {
            _ = try open(sealed, context: context, keyring: keyring)
            return sealed
        }
        return try seal(open(sealed, context: context, keyring: keyring), context: context, keyring: keyring)
    }

    /// Keyed blind index for equality lookups:
    /// `HMAC-SHA256(indexKey, "hallmark-blind-index-v1" ‖ lengthPrefixed(table, column) ‖ value)`.
    /// Use a dedicated index key (≥ 32 bytes), not a KEK: index keys cannot rotate without
    /// recomputing every index.
    public static func blindIndex(
        _ value: some DataProtocol, table: String, column: String,
        indexKey: some DataProtocol
    ) throws(HallmarkCryptoError) -> Data {
        try blindIndex(value, prefix: blindIndexPrefix(table: table, column: column), indexKey: indexKey)
    }

    /// What a blind index of `table`.`column` MACs before the value: for a caller that indexes
    /// many values of one column, to compute once.
    public static func blindIndexPrefix(table: String, column: String) -> Data {
        Data("hallmark-blind-index-v1".utf8) + AtRestContext.lengthPrefixed([table, column])
    }

    /// ``blindIndex(_:table:column:indexKey:)`` with its ``blindIndexPrefix(table:column:)``.
    public static func blindIndex(
        _ value: some DataProtocol, prefix: Data, indexKey: some DataProtocol
    ) throws(HallmarkCryptoError) -> Data {
        guard indexKey.count >= 32 else { throw HallmarkCryptoError(.invalidKey, "blind-index key must be ≥ 32 bytes") }
        var data = prefix
        data.append(contentsOf: value)
        return HMACSHA256.mac(key: indexKey, data: data)
    }

    /// ``blindIndex(_:prefix:indexKey:)`` under an index key prepared once (the same bytes;
    /// the caller checked the key's length when it prepared it).
    public static func blindIndex(_ value: some DataProtocol, prefix: Data, preparedKey: PreparedHMACKey) -> Data {
        preparedKey.mac(prefix, value)
    }

    static func aad(header: Data, context: AtRestContext) -> Data {
        domain + header + AtRestContext.lengthPrefixed([context.table, context.column, context.rowId])
    }
}
