import AggregatorCore
import ArgumentParser
import Foundation
import HallmarkCore
import HallmarkCrypto

/// `hallmark aggregator …`: the transparency log's checkpoint key, and a submission by hand.
package struct AggregatorCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "aggregator",
        abstract: "Birthmark aggregator: the checkpoint key, the log as tiles, and one submission by hand.",
        subcommands: [SigningKeyCommand.self, PublicKeyCommand.self, SubmitCommand.self, BundleCommand.self, TilesCommand.self])

    package init() {}
}

/// `hallmark aggregator signing-key --out F`: makes the checkpoint key (never overwrites).
package struct SigningKeyCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "signing-key", abstract: "Make a new Ed25519 checkpoint key file (mode 0600) and print its public key.")

    @Option(help: "Where to write the private key; an existing file is never overwritten.") var out: String

    package init() {}

    package func run() async throws {
        let key = try CheckpointSigningKey.generate()
        try key.write(to: out)
        print("public_key=\(Base64.encode(key.publicKey))")
        print("key_id=\(key.keyID)")
    }
}

/// `hallmark aggregator public-key`: what third parties verify checkpoints with.
package struct PublicKeyCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "public-key",
        abstract:
            "Print the log's verifier key (C2SP vkey), the checkpoint key's public half (b64) and key id; the private key is never printed."
    )

    @Option(help: "The key file (default: HALLMARK_AGGREGATOR_SIGNING_KEY_FILE).") var keyFile: String?
    @Option(help: "The log's origin (default: HALLMARK_AGGREGATOR_LOG_ORIGIN).") var origin: String?

    package init() {}

    package func run() async throws {
        let settings = Settings()
        guard let path = try keyFile ?? AggregatorConfiguration.value(\.signingKeyFile, in: settings) else {
            throw ValidationError("give --key-file or set HALLMARK_AGGREGATOR_SIGNING_KEY_FILE")
        }
        let key = try CheckpointSigningKey.load(path)
        let origin = try self.origin ?? AggregatorConfiguration.value(\.origin, in: settings)
        guard NoteVerifierKey.isValidName(origin) else { throw ValidationError("--origin must have no spaces or '+'") }
        print("vkey=\(try key.verifierKey(origin: origin))")
        print("public_key=\(Base64.encode(key.publicKey))")
        print("key_id=\(key.keyID)")
    }
}
