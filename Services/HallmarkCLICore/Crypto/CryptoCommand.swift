import ArgumentParser
import Foundation

/// `hallmark crypto <command>`: operator tools over the HallmarkCrypto protocols. Each
/// command reads one JSON object on stdin and writes one JSON object on stdout; on bad
/// input it prints `{"error": code, "message": …}` and exits non-zero.
package struct CryptoCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "crypto",
        abstract: "Sign, verify, encrypt and inspect Hallmark protocol messages (JSON on stdin → JSON on stdout).",
        subcommands: [
            SmileIDSign.self, SmileIDVerify.self, SmileIDSignFiles.self, Enc1Encrypt.self, Enc1Decrypt.self,
            BMDerive.self, BMOpenToken.self, Merkle.self, E2EEOpen.self,
        ])

    package init() {}
}

/// A `hallmark crypto` subcommand: stdin → `CryptoTool.run` → stdout.
protocol CryptoToolCommand: ParsableCommand {
    static var toolName: String { get }
}

extension CryptoToolCommand {
    func run() throws {
        let input = FileHandle.standardInput.readDataToEndOfFile()
        let output = CryptoTool.run(command: Self.toolName, input: input)
        FileHandle.standardOutput.write(output.json)
        if output.exitCode != 0 { throw ExitCode(output.exitCode) }
    }
}

extension CryptoCommand {
    struct SmileIDSign: CryptoToolCommand {
        static let toolName = "smileid-sign"
        static let configuration = CommandConfiguration(
            commandName: toolName, abstract: "SIGN-1 MAC: {secret, timestamp, headers?, payload_b64?} → {mac}")
    }

    struct SmileIDVerify: CryptoToolCommand {
        static let toolName = "smileid-verify"
        static let configuration = CommandConfiguration(
            commandName: toolName,
            abstract: "SIGN-1 check: {secret|secrets, timestamp, headers?, payload_b64?, mac} → {valid, secret_index}")
    }

    struct SmileIDSignFiles: CryptoToolCommand {
        static let toolName = "smileid-sign-files"
        static let configuration = CommandConfiguration(
            commandName: toolName, abstract: "SIGN-FILES MAC: {secret, timestamp, files: [{name, content_b64}]} → {mac}")
    }

    struct Enc1Encrypt: CryptoToolCommand {
        static let toolName = "enc1-encrypt"
        static let configuration = CommandConfiguration(
            commandName: toolName,
            abstract: "ENC-1 envelope: {secret, timestamp, request_id, plaintext_b64, iv_b64?} → envelope")
    }

    struct Enc1Decrypt: CryptoToolCommand {
        static let toolName = "enc1-decrypt"
        static let configuration = CommandConfiguration(
            commandName: toolName, abstract: "ENC-1 open: {secret, request_id, envelope} → {plaintext_b64}")
    }

    struct BMDerive: CryptoToolCommand {
        static let toolName = "bm-derive"
        static let configuration = CommandConfiguration(
            commandName: toolName, abstract: "BM-TOKEN key: {master_hex, key_index, format?} → {key_hex}")
    }

    struct BMOpenToken: CryptoToolCommand {
        static let toolName = "bm-open-token"
        static let configuration = CommandConfiguration(
            commandName: toolName, abstract: "BM-TOKEN open: {master_hex, token fields} → {nuc_hex, table_id, key_index}")
    }

    struct Merkle: CryptoToolCommand {
        static let toolName = "merkle"
        static let configuration = CommandConfiguration(
            commandName: toolName,
            abstract: "BM-LOG: {leaves_hex, leaf_index?, old_size?} → {root_hex, inclusion_proof, consistency_proof}")
    }

    struct E2EEOpen: CryptoToolCommand {
        static let toolName = "e2ee-open"
        static let configuration = CommandConfiguration(
            commandName: toolName, abstract: "E2EE-1 open: {session_key_b64, direction, message} → {plaintext_b64}")
    }
}
