import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkCrypto

/// What `hallmark verify` trusts: one public key, and the log's vkey when it has one.
///
/// The key comes from the command line when either option is given there, and then from it
/// alone; otherwise from the variables configured for verifiers (`HALLMARK_AGGREGATOR_VKEY`,
/// `HALLMARK_AGGREGATOR_PUBLIC_KEY`). When both a public key and a vkey are given, at the same
/// level, they must name the same key. A signing key is never read: a verifier holds only what
/// a third party could hold, so an answer checks out against the key the user named or not at
/// all (with the signing key's public half as a fallback, `--public-key <a stranger's key>` was
/// silently replaced by the operator's own key).
struct VerifierTrust {
    /// The aggregator's Ed25519 checkpoint key.
    let publicKey: Data
    /// The log's C2SP verifier key, when given (it names `publicKey`).
    let vkey: NoteVerifierKey?

    /// The trust anchor from the options, else the environment.
    static func resolve(publicKey: String?, vkey: String?, env: [String: String]) throws -> VerifierTrust {
        if publicKey != nil || vkey != nil {
            return try VerifierTrust(publicKey: publicKey, vkey: vkey, from: "--public-key and --vkey")
        }
        let settings = Settings(env)
        let publicKey = try settings.value(CLIVariables.aggregatorPublicKey)
        let vkey = try settings.value(CLIVariables.aggregatorVKey)
        guard publicKey != nil || vkey != nil else {
            throw ValidationError(
                "give --public-key or --vkey (hallmark aggregator public-key prints both); a signing key is never used to verify")
        }
        return try VerifierTrust(
            publicKey: publicKey, vkey: vkey, from: "HALLMARK_AGGREGATOR_PUBLIC_KEY and HALLMARK_AGGREGATOR_VKEY")
    }

    /// The key `publicKey` or `vkey` name (the same one when both are given); `source` names
    /// where they came from, for the error.
    private init(publicKey: String?, vkey: String?, from source: String) throws {
        let parsedVKey = try vkey.map(Self.parseVKey)
        let parsedKey = try publicKey.map(Self.parseKey)
        if let parsedKey, let parsedVKey, parsedKey != parsedVKey.publicKey {
            throw ValidationError("\(source) name different keys")
        }
        guard let key = parsedKey ?? parsedVKey?.publicKey else { throw ValidationError("give --public-key or --vkey") }
        self.publicKey = key
        self.vkey = parsedVKey
    }

    static func parseKey(_ text: String) throws -> Data {
        guard let key = try? Base64.decode(text, length: 32) else { throw ValidationError("a public key is 32 bytes, b64") }
        return key
    }

    static func parseVKey(_ text: String) throws -> NoteVerifierKey {
        guard let key = try? NoteVerifierKey(parsing: text), key.algorithm == .ed25519 else {
            throw ValidationError("a vkey is <origin>+<key id>+<b64 key>, as hallmark aggregator public-key prints it")
        }
        return key
    }
}
