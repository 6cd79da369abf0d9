import Foundation
import HallmarkCore

/// PROV-1: the sealed provisioning answer,
/// `b64(ephemeralPublicKey (32) ‖ nonce (12) ‖ ciphertext ‖ tag)` with the AES-GCM key
/// `HKDF(X25519(ephemeral, camera), salt = ephemeralPublic ‖ cameraPublic, "hallmark-provisioning-v1", 32)`.
public enum ProvisioningSeal {
    /// HKDF info.
    public static let info = Data("hallmark-provisioning-v1".utf8)

    /// Authority side: seals `answer` to the camera's X25519 public key. The ephemeral key
    /// and nonce are random unless given (tests only).
    public static func seal(
        _ answer: ProvisioningAnswer, cameraPublicKey: some DataProtocol,
        ephemeralPrivateKey: Data? = nil, nonce: Data? = nil
    ) throws(HallmarkCryptoError) -> String {
        let camera = Data(cameraPublicKey)
        let ephemeral: X25519.KeyPair
        if let ephemeralPrivateKey {
            ephemeral = try X25519.keyPair(privateKey: ephemeralPrivateKey)
        } else {
            ephemeral = try X25519.generate()
        }
        let key = try aeadKey(
            shared: X25519.sharedSecret(privateKey: ephemeral.privateKey, publicKey: camera),
            ephemeralPublic: ephemeral.publicKey, cameraPublic: camera)
        let sealed = try AESGCM256.seal(JSONCoding.encodeData(answer, what: "provisioning answer"), key: key, nonce: nonce)
        return Base64.encode(ephemeral.publicKey + sealed.combined)
    }

    /// Camera side: opens a sealed answer with the camera's private key.
    public static func open(
        _ sealed: String, cameraPrivateKey: some DataProtocol
    ) throws(HallmarkCryptoError)
        -> ProvisioningAnswer
    {
        let bytes = try Base64.decode(sealed)
        guard bytes.count >= 32 + AESGCM256.nonceLength + AESGCM256.tagLength else {
            throw HallmarkCryptoError(.invalidLength, "sealed provisioning answer too short")
        }
        let ephemeralPublic = bytes.prefix(32)
        let camera = try X25519.keyPair(privateKey: cameraPrivateKey)
        let key = try aeadKey(
            shared: X25519.sharedSecret(privateKey: cameraPrivateKey, publicKey: ephemeralPublic),
            ephemeralPublic: Data(ephemeralPublic), cameraPublic: camera.publicKey)
        let plaintext = try AESGCM256.open(AESGCM256.Sealed(combined: bytes.dropFirst(32)), key: key)
        return try JSONCoding.decode(ProvisioningAnswer.self, from: plaintext, what: "provisioning answer")
    }

    static func aeadKey(shared: Data, ephemeralPublic: Data, cameraPublic: Data) throws(HallmarkCryptoError) -> Data {
        try HKDFSHA256.derive(ikm: shared, salt: ephemeralPublic + cameraPublic, info: info, length: 32)
    }
}
