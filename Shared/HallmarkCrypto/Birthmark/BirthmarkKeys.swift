import Foundation

/// BM-TOKEN key derivation from a key table's 32-byte master key.
public enum BirthmarkKeys {
    /// Valid key indices.
    public static let keyIndices = 0...999
    /// The table ids a token may name (the schemas' `table_id` range); larger ones are malformed,
    /// not unknown.
    public static let tableIds = 0...1_000_000
    /// Default number of key tables.
    public static let defaultTableCount = 2500

    /// The two token formats, which derive keys differently.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// Camera / manufacturer: `info = u32be(keyIndex) ‖ "Birthmark"`.
        case reference
        /// iOS app: `info = utf8("Birthmark" + String(keyIndex))`.
        case mobile
    }

    /// The HKDF info for an index.
    public static func info(keyIndex: Int, format: Format) -> Data {
        switch format {
        case .reference:
            var info = Data()
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: keyIndex).bigEndian) { info.append(contentsOf: $0) }
            return info + Data("Birthmark".utf8)
        case .mobile:
            return Data(("Birthmark" + String(keyIndex)).utf8)
        }
    }

    /// `HKDF(IKM = master, empty salt, info, 32)`. `invalidKey` unless the master is 32
    /// bytes; `invalidArgument` for an index outside 0...999.
    public static func derive(
        master: some DataProtocol, keyIndex: Int,
        format: Format = .reference
    ) throws(HallmarkCryptoError) -> Data {
        guard master.count == 32 else { throw HallmarkCryptoError(.invalidKey, "key-table master key must be 32 bytes") }
        guard keyIndices.contains(keyIndex) else {
            throw HallmarkCryptoError(.invalidArgument, "key index must be 0...999")
        }
        return try HKDFSHA256.derive(ikm: master, info: info(keyIndex: keyIndex, format: format), length: 32)
    }
}
