import Foundation
import HallmarkTestSupport
import Testing
@testable import HallmarkCrypto

/// The module's own HMAC-SHA256 and HKDF-SHA256 agree with swift-crypto's on random inputs
/// of every awkward size (keys longer than a block, empty salts, multi-block outputs); the
/// RFC 5869 vectors in RFCVectorTests run through the same fast path.
@Suite(.timeLimit(.minutes(2)))
struct NativeHMACTests {
    @Test func hmacMatchesSwiftCrypto() {
        var rng = SplitMix64(seed: 0x4841_4C4C)
        for keyLength in [0, 1, 31, 32, 63, 64, 65, 131] {
            for dataLength in [0, 1, 55, 56, 64, 119, 1000] {
                let key = rng.bytes(keyLength), data = rng.bytes(dataLength)
                #expect(
                    HMACSHA256.mac(key: key, data: data) == HMACSHA256.referenceMAC(key: key, data: data),
                    "key \(keyLength) data \(dataLength)")
            }
        }
        // RFC 4231 test case 2.
        #expect(
            Hex.encode(HMACSHA256.mac(key: Data("Jefe".utf8), data: Data("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Array and slice inputs (non-Data DataProtocol) take the copying path.
        let bytes: [UInt8] = Array(rng.bytes(40))
        #expect(HMACSHA256.mac(key: bytes, data: bytes[3...]) == HMACSHA256.referenceMAC(key: bytes, data: bytes[3...]))
    }

    /// A prepared key MACs what the key itself MACs, its two pieces read as one message.
    @Test func preparedKeyMatchesSwiftCrypto() {
        var rng = SplitMix64(seed: 0x5052_4550)
        for keyLength in [0, 1, 32, 64, 65, 131] {
            let key = rng.bytes(keyLength), prepared = PreparedHMACKey(key)
            for (prefixLength, valueLength) in [(0, 0), (0, 32), (45, 32), (64, 0), (63, 1), (100, 919)] {
                let prefix = rng.bytes(prefixLength), value = rng.bytes(valueLength)
                #expect(
                    prepared.mac(prefix, value) == HMACSHA256.referenceMAC(key: key, data: prefix + value),
                    "key \(keyLength) prefix \(prefixLength) value \(valueLength)")
            }
        }
        // RFC 4231 test case 2, split anywhere; and a non-Data value.
        let jefe = PreparedHMACKey(Data("Jefe".utf8))
        #expect(
            Hex.encode(jefe.mac(Data("what do ya ".utf8), Array("want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let key = rng.bytes(32), nuc = rng.bytes(32)
        let prefix = AtRestSeal.blindIndexPrefix(table: "devices", column: "nuc_hash")
        #expect(
            AtRestSeal.blindIndex(nuc, prefix: prefix, preparedKey: PreparedHMACKey(key))
                == (try? AtRestSeal.blindIndex(nuc, table: "devices", column: "nuc_hash", indexKey: key)))
    }

    @Test func hkdfMatchesSwiftCrypto() throws {
        var rng = SplitMix64(seed: 0x484B_4446)
        for (ikmLength, saltLength, infoLength, length) in [
            (32, 0, 0, 32), (32, 64, 20, 32), (22, 13, 10, 42),
            (80, 80, 80, 82), (16, 100, 0, 255 * 32), (0, 0, 0, 1),
        ] {
            let ikm = rng.bytes(ikmLength), salt = rng.bytes(saltLength), info = rng.bytes(infoLength)
            #expect(
                try HKDFSHA256.derive(ikm: ikm, salt: salt, info: info, length: length)
                    == HKDFSHA256.referenceDerive(ikm: ikm, salt: salt, info: info, length: length))
        }
        expectCode(.invalidArgument) { _ = try HKDFSHA256.derive(ikm: Data([1]), length: 255 * 32 + 1) }
        expectCode(.invalidArgument) { _ = try HKDFSHA256.derive(ikm: Data([1]), length: 0) }
    }
}
