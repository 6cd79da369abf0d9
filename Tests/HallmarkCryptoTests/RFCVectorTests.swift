import Foundation
import Testing
@testable import HallmarkCrypto

/// Published vectors for the primitives.
@Suite(.timeLimit(.minutes(2))) struct RFCVectorTests {
    // RFC 5869 appendix A, SHA-256 cases 1–3.
    @Test(arguments: [
        (
            ikm: String(repeating: "0b", count: 22), salt: "000102030405060708090a0b0c", info: "f0f1f2f3f4f5f6f7f8f9", length: 42,
            prk: "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
            okm: "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"
        ),
        (
            ikm: Hex.encode(0x00...0x4f), salt: Hex.encode(0x60...0xaf), info: Hex.encode(0xb0...0xff), length: 82,
            prk: "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
            okm:
                "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"
        ),
        (
            ikm: String(repeating: "0b", count: 22), salt: "", info: "", length: 42,
            prk: "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
            okm: "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"
        ),
    ])
    func hkdfRFC5869(v: (ikm: String, salt: String, info: String, length: Int, prk: String, okm: String)) throws {
        let okm = try HKDFSHA256.derive(ikm: hex(v.ikm), salt: hex(v.salt), info: hex(v.info), length: v.length)
        #expect(Hex.encode(okm) == v.okm)
        // PRK = HMAC(salt or 32 zero bytes, IKM); expand alone reproduces the OKM.
        let prk = HMACSHA256.mac(key: v.salt.isEmpty ? Data(count: 32) : hex(v.salt), data: hex(v.ikm))
        #expect(Hex.encode(prk) == v.prk)
        #expect(try HKDFSHA256.expand(prk: prk, info: hex(v.info), length: v.length) == okm)
    }

    // RFC 7748 §5.2.
    @Test(arguments: [
        (
            "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
            "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
            "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"
        ),
        (
            "4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
            "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
            "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"
        ),
    ])
    func x25519RFC7748(scalar: String, u: String, out: String) throws {
        #expect(Hex.encode(try X25519.sharedSecret(privateKey: hex(scalar), publicKey: hex(u))) == out)
    }

    // RFC 7748 §6.1.
    @Test func x25519AliceBob() throws {
        let alice = try X25519.keyPair(privateKey: hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
        let bob = try X25519.keyPair(privateKey: hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
        #expect(Hex.encode(alice.publicKey) == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        #expect(Hex.encode(bob.publicKey) == "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
        let shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
        #expect(Hex.encode(try X25519.sharedSecret(privateKey: alice.privateKey, publicKey: bob.publicKey)) == shared)
        #expect(Hex.encode(try X25519.sharedSecret(privateKey: bob.privateKey, publicKey: alice.publicKey)) == shared)
    }

    // RFC 8032 §7.1 tests 1–3.
    @Test(arguments: [
        (
            "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        ),
        (
            "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
        ),
        (
            "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
            "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
            "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"
        ),
    ])
    func ed25519RFC8032(seed: String, publicKey: String, message: String, signature: String) throws {
        #expect(Hex.encode(try Ed25519.keyPair(seed: hex(seed)).publicKey) == publicKey)
        #expect(Hex.encode(try Ed25519.sign(hex(message), seed: hex(seed))) == signature)
        #expect(Ed25519.verify(signature: hex(signature), message: hex(message), publicKey: hex(publicKey)))
        #expect(!Ed25519.verify(signature: flipped(hex(signature), at: 10), message: hex(message), publicKey: hex(publicKey)))
    }

    // McGrew–Viega GCM spec, test cases 13–16 (AES-256).
    static let gcmKey = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"
    static let gcmPlain =
        "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255"
    static let gcmCipher =
        "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad"
    @Test(arguments: [
        (String(repeating: "00", count: 32), String(repeating: "00", count: 12), "", "", "", "530f8afbc74536b9a963b4f1c4cb738b"),
        (
            String(repeating: "00", count: 32), String(repeating: "00", count: 12), String(repeating: "00", count: 16), "",
            "cea7403d4d606b6e074ec5d3baf39d18", "d0d1c8a799996bf0265b98b5d48ab919"
        ),
        (gcmKey, "cafebabefacedbaddecaf888", gcmPlain, "", gcmCipher, "b094dac5d93471bdec1a502270e3cc6c"),
        (
            gcmKey, "cafebabefacedbaddecaf888", String(gcmPlain.prefix(120)), "feedfacedeadbeeffeedfacedeadbeefabaddad2",
            String(gcmCipher.prefix(120)), "76fc6ece0f4e1768cddf8853bb2d551b"
        ),
    ])
    func aesGCMSpec(key: String, iv: String, plain: String, aad: String, cipher: String, tag: String) throws {
        for backend in AESGCM256.Backend.allCases {
            let sealed = try AESGCM256.seal(hex(plain), key: hex(key), nonce: hex(iv), aad: hex(aad), backend: backend)
            #expect(Hex.encode(sealed.ciphertext) == cipher, "\(backend)")
            #expect(Hex.encode(sealed.tag) == tag, "\(backend)")
            for opener in AESGCM256.Backend.allCases {
                #expect(try AESGCM256.open(sealed, key: hex(key), aad: hex(aad), backend: opener) == hex(plain))
                expectCode(.authenticationFailed) {
                    _ = try AESGCM256.open(
                        AESGCM256.Sealed(
                            nonce: sealed.nonce, ciphertext: sealed.ciphertext,
                            tag: flipped(sealed.tag, at: 0)),
                        key: hex(key), aad: hex(aad), backend: opener)
                }
                expectCode(.authenticationFailed) {
                    _ = try AESGCM256.open(sealed, key: hex(key), aad: hex(aad) + Data([0]), backend: opener)
                }
            }
        }
    }

    @Test func sha256Basics() {
        #expect(
            Hex.encode(SHA256Hash.digest(Data("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
