import AggregatorCore
import Foundation
import HallmarkCore
import HallmarkCrypto
import Testing
@testable import HallmarkCLICore

/// What `hallmark verify` trusts (issue #53, 5): the key named on its command line alone, else the
/// verifiers' configured key; a signing key's file never stands in for either.
@Suite(.timeLimit(.minutes(1)))
struct VerifierTrustTests {
    let signingFile: String
    let signing: CheckpointSigningKey

    init() throws {
        signing = try CheckpointSigningKey.generate()
        signingFile = FileManager.default.temporaryDirectory.appendingPathComponent("trust-\(UUID()).key").path
        try signing.write(to: signingFile)
    }

    func vkey(_ key: Data) throws -> String {
        try NoteVerifierKey(name: "example.org/log", algorithm: .ed25519, publicKey: key).description
    }

    @Test func theCommandLineIsTheOnlyAnchor() throws {
        defer { try? FileManager.default.removeItem(atPath: signingFile) }
        let stranger = try Ed25519.generate().publicKey
        let env = [
            "HALLMARK_AGGREGATOR_SIGNING_KEY_FILE": signingFile,
            "HALLMARK_AGGREGATOR_PUBLIC_KEY": Base64.encode(signing.publicKey),
        ]
        // A stranger's key on the command line is the key, whatever the environment holds.
        let byKey = try VerifierTrust.resolve(publicKey: Base64.encode(stranger), vkey: nil, env: env)
        #expect(byKey.publicKey == stranger && byKey.vkey == nil)
        let byVKey = try VerifierTrust.resolve(publicKey: nil, vkey: try vkey(stranger), env: env)
        #expect(byVKey.publicKey == stranger && byVKey.vkey?.publicKey == stranger)
        // Both given: they must name one key.
        #expect(
            try VerifierTrust.resolve(publicKey: Base64.encode(stranger), vkey: try vkey(stranger), env: [:]).publicKey
                == stranger)
        #expect(throws: (any Error).self) {
            try VerifierTrust.resolve(publicKey: Base64.encode(stranger), vkey: try vkey(signing.publicKey), env: [:])
        }
    }

    @Test func theEnvironmentNamesVerifierKeysOnly() throws {
        defer { try? FileManager.default.removeItem(atPath: signingFile) }
        // The signing key's file alone is no trust anchor.
        #expect(throws: (any Error).self) {
            try VerifierTrust.resolve(publicKey: nil, vkey: nil, env: ["HALLMARK_AGGREGATOR_SIGNING_KEY_FILE": signingFile])
        }
        let configured = try VerifierTrust.resolve(
            publicKey: nil, vkey: nil,
            env: ["HALLMARK_AGGREGATOR_VKEY": try vkey(signing.publicKey), "HALLMARK_AGGREGATOR_SIGNING_KEY_FILE": signingFile])
        #expect(configured.publicKey == signing.publicKey && configured.vkey != nil)
        #expect(throws: (any Error).self) {
            try VerifierTrust.resolve(
                publicKey: nil, vkey: nil,
                env: [
                    "HALLMARK_AGGREGATOR_VKEY": try vkey(signing.publicKey),
                    "HALLMARK_AGGREGATOR_PUBLIC_KEY": Base64.encode(try Ed25519.generate().publicKey),
                ])
        }
        #expect(throws: (any Error).self) { try VerifierTrust.resolve(publicKey: "short", vkey: nil, env: [:]) }
    }
}
