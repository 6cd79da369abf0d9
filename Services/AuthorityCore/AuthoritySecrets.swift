import Foundation
import HallmarkCrypto

/// The authority's secrets: the versioned KEKs (REST) and the blind-index key for NUC
/// hashes. They come from a file (`HALLMARK_AUTHORITY_KEK_FILE`) or a variable
/// (`HALLMARK_AUTHORITY_KEK`), never from the database.
///
/// Format: ``KeyEncryptionFile``, with the `index=` entry required. To rotate, add a higher
/// `kek.N` and restart; the re-sealer moves rows to it in the background, and the old entry
/// can be removed once `hallmark authority status` shows no row under it.
package struct AuthoritySecrets: Sendable {
    /// The KEKs.
    package let keyring: KeyEncryptionKeyring
    /// HMAC key of the NUC blind index (must never change).
    package let indexKey: Data
    /// ``indexKey`` prepared: every token validated computes a NUC index.
    private let preparedIndexKey: PreparedHMACKey

    /// Creates secrets from parts.
    package init(keyring: KeyEncryptionKeyring, indexKey: Data) throws(AuthorityError) {
        guard indexKey.count == 32 else { throw AuthorityError(.configuration, "the index key must be 32 bytes") }
        self.keyring = keyring
        self.indexKey = indexKey
        preparedIndexKey = PreparedHMACKey(indexKey)
    }

    /// Reads `HALLMARK_AUTHORITY_KEK_FILE`, else `HALLMARK_AUTHORITY_KEK` (``KeyEncryptionFile``).
    package static func fromEnvironment(_ env: [String: String]) throws(AuthorityError) -> AuthoritySecrets {
        try secrets { () throws(HallmarkCryptoError) in try KeyEncryptionFile.fromEnvironment(env, prefix: "HALLMARK_AUTHORITY_")
        }
    }

    /// Parses the secrets text; errors name the source and the entry, never a value.
    package static func parse(_ text: String, source: String) throws(AuthorityError) -> AuthoritySecrets {
        try secrets { () throws(HallmarkCryptoError) in try KeyEncryptionFile.parse(text, source: source) }
    }

    private static func secrets(
        _ read: () throws(HallmarkCryptoError) -> KeyEncryptionFile
    ) throws(AuthorityError)
        -> AuthoritySecrets
    {
        let file: KeyEncryptionFile
        do { file = try read() } catch { throw AuthorityError(.configuration, error.reason) }
        guard let index = file.indexKey else { throw AuthorityError(.configuration, "the secrets have no index= entry") }
        return try AuthoritySecrets(keyring: file.keyring, indexKey: index)
    }

    /// A fresh secrets text with one KEK (version 1) and an index key, for development.
    package static func generateText() throws -> String {
        try KeyEncryptionFile.generateText(title: "Hallmark authority secrets", index: true)
    }

    private static let nucIndexPrefix = AtRestSeal.blindIndexPrefix(table: "devices", column: "nuc_hash")

    /// The blind index of a NUC hash.
    package func nucIndex(_ nucHash: Data) -> Data {
        AtRestSeal.blindIndex(nucHash, prefix: Self.nucIndexPrefix, preparedKey: preparedIndexKey)
    }

    /// The keyed blind index of an erased camera's serial (its tombstone).
    package func tombstoneIndex(_ serial: String) -> Data {
        // Cannot throw: the index key is 32 bytes by construction.
        (try? AtRestSeal.blindIndex(Data(serial.utf8), table: "erased_devices", column: "serial", indexKey: indexKey)) ?? Data()
    }
}
