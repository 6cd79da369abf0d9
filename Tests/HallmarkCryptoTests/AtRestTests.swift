import Foundation
import HallmarkTestSupport
import Testing
@testable import HallmarkCrypto

@Suite(.timeLimit(.minutes(2))) struct AtRestTests {
    static let v1 = Data(repeating: 0x11, count: 32), v2 = Data(repeating: 0x22, count: 32)
    static let context = AtRestContext(table: "authority.key_tables", column: "master_key", rowId: "42")

    @Test func sealOpenRotate() throws {
        let ring1 = try KeyEncryptionKeyring(keys: [1: Self.v1], currentVersion: 1)
        let ring2 = try KeyEncryptionKeyring(keys: [1: Self.v1, 2: Self.v2], currentVersion: 2)
        let secret = Data(repeating: 0xab, count: 32)
        let sealed = try AtRestSeal.seal(secret, context: Self.context, keyring: ring1)
        #expect(sealed.count == 5 + 12 + 32 + 16)
        #expect(try AtRestSeal.kekVersion(of: sealed) == 1)
        #expect(try AtRestSeal.open(sealed, context: Self.context, keyring: ring2) == secret)
        let resealed = try AtRestSeal.reseal(sealed, context: Self.context, keyring: ring2)
        #expect(try AtRestSeal.kekVersion(of: resealed) == 2)
        #expect(try AtRestSeal.open(resealed, context: Self.context, keyring: ring2) == secret)
        #expect(try AtRestSeal.reseal(resealed, context: Self.context, keyring: ring2) == resealed)
        expectCode(.unknownKeyVersion) { _ = try AtRestSeal.open(resealed, context: Self.context, keyring: ring1) }

        // Bound to table, column and row id.
        for other in [
            AtRestContext(table: "x", column: "master_key", rowId: "42"),
            AtRestContext(table: "authority.key_tables", column: "other", rowId: "42"),
            AtRestContext(table: "authority.key_tables", column: "master_key", rowId: "43"),
        ] {
            expectCode(.authenticationFailed) { _ = try AtRestSeal.open(sealed, context: other, keyring: ring2) }
        }
        // Every byte is authenticated (the header's version bytes included).
        for i in 0..<sealed.count {
            #expect(throws: HallmarkCryptoError.self) {
                _ = try AtRestSeal.open(flipped(sealed, at: i), context: Self.context, keyring: ring2)
            }
        }
        // Re-labelling v1 ciphertext as v2 fails.
        var relabelled = sealed
        relabelled[4] = 2
        expectCode(.authenticationFailed) { _ = try AtRestSeal.open(relabelled, context: Self.context, keyring: ring2) }
        expectCode(.invalidLength) { _ = try AtRestSeal.open(Data(count: 10), context: Self.context, keyring: ring2) }
        expectCode(.unsupportedVersion) { _ = try AtRestSeal.kekVersion(of: Data(count: 40)) }
    }

    @Test func keyringValidation() {
        expectCode(.invalidKey) { _ = try KeyEncryptionKeyring(keys: [1: Data(count: 16)], currentVersion: 1) }
        expectCode(.unknownKeyVersion) { _ = try KeyEncryptionKeyring(keys: [1: Self.v1], currentVersion: 2) }
    }

    @Test func blindIndex() throws {
        let key = Data(repeating: 5, count: 32), nuc = Data(repeating: 9, count: 32)
        let a = try AtRestSeal.blindIndex(nuc, table: "devices", column: "nuc_hash", indexKey: key)
        #expect(a.count == 32)
        #expect(try AtRestSeal.blindIndex(nuc, table: "devices", column: "nuc_hash", indexKey: key) == a)
        #expect(try AtRestSeal.blindIndex(nuc, table: "devices", column: "other", indexKey: key) != a)
        #expect(
            try AtRestSeal.blindIndex(nuc, table: "devices", column: "nuc_hash", indexKey: Data(repeating: 6, count: 32)) != a)
        expectCode(.invalidKey) { _ = try AtRestSeal.blindIndex(nuc, table: "t", column: "c", indexKey: Data(count: 8)) }
    }

    @Test func codingHelpers() throws {
        expectCode(.malformedHex) { _ = try Hex.decode("abc") }
        expectCode(.malformedHex) { _ = try Hex.decode("zz") }
        expectCode(.invalidLength) { _ = try Hex.decode("abcd", length: 3) }
        #expect(try Hex.decode("ABcd") == Data([0xab, 0xcd]))
        for bad in ["A", "AB=", "AB==C", "A===", "ab cd", "YQ", "YR=="] {
            expectCode(.malformedBase64) { _ = try Base64.decode(bad) }
        }
        #expect(try Base64.decode("YQ==") == Data("a".utf8))
        #expect(try Base64.decode("") == Data())
        #expect(try SecureRandom.bytes(0).isEmpty)
        #expect(try SecureRandom.bytes(64) != SecureRandom.bytes(64))
        expectCode(.invalidArgument) { _ = try SecureRandom.bytes(-1) }
        expectCode(.invalidArgument) { _ = try HKDFSHA256.derive(ikm: Data(), length: 255 * 32 + 1) }
        // Error descriptions carry the code and reason only.
        #expect(HallmarkCryptoError(.invalidKey, "why").description == "invalid_key: why")
    }
}

@Suite(.timeLimit(.minutes(2))) struct RandomRoundTripTests {
    @Test func randomValuesRoundTrip() throws {
        var rng = SplitMix64(seed: 2026)
        let ring = try KeyEncryptionKeyring(keys: [7: rng.bytes(32)], currentVersion: 7)
        for i in 0..<50 {
            let value = rng.bytes(Int.random(in: 0...300, using: &rng))
            let context = AtRestContext(table: "t\(i)", column: "c", rowId: String(i))
            #expect(
                try AtRestSeal.open(
                    AtRestSeal.seal(value, context: context, keyring: ring), context: context,
                    keyring: ring) == value)
            let key = rng.bytes(32), nonce = rng.bytes(12), aad = rng.bytes(i)
            // The two AES-GCM backends agree byte for byte and open each other's output.
            let sealed = try AESGCM256.seal(value, key: key, nonce: nonce, aad: aad, backend: .openSSL)
            #expect(try AESGCM256.seal(value, key: key, nonce: nonce, aad: aad, backend: .swiftCrypto) == sealed)
            #expect(
                try AESGCM256.open(
                    AESGCM256.Sealed(combined: sealed.combined), key: key, aad: aad,
                    backend: .swiftCrypto) == value)
            #expect(try AESGCM256.open(sealed, key: key, aad: aad, backend: .openSSL) == value)
            let master = rng.bytes(32), nuc = rng.bytes(32), index = Int.random(in: 0...999, using: &rng)
            let token = try BirthmarkCameraToken.seal(nucHash: nuc, master: master, tableId: i, keyIndex: index)
            #expect(try token.open(master: master) == nuc)
            let mobile = try BirthmarkMobileToken.seal(
                nucHash: nuc, master: master, tableReferences: [i, i + 1, i + 2],
                keyIndices: [index, 0, 999], used: 0)
            #expect(try mobile.open(master: master, keyIndex: index) == nuc)
        }
    }
}
