import Foundation
import HallmarkCrypto

/// The pure core of `hallmark crypto <command>`: one JSON object in, one JSON object out.
/// Binary values are base64 unless the protocol says hex.
package enum CryptoTool {
    /// What a command produced.
    package struct Output: Sendable, Equatable {
        /// 0 on success, 1 on bad input or failed verification of a token.
        package let exitCode: Int32
        /// One compact JSON object (sorted keys) followed by a newline.
        package let json: Data
    }

    /// Every command name.
    package static let commands = [
        "smileid-sign", "smileid-verify", "smileid-sign-files", "enc1-encrypt",
        "enc1-decrypt", "bm-derive", "bm-open-token", "merkle", "e2ee-open",
    ]

    /// Runs `command` on `input` (the bytes read from stdin).
    package static func run(command: String, input: Data) -> Output {
        do {
            let result = try dispatch(command, CryptoToolInput(input))
            return Output(exitCode: 0, json: encode(result))
        } catch {
            return Output(exitCode: 1, json: encode(["error": error.code, "message": error.message]))
        }
    }

    static func dispatch(_ command: String, _ input: CryptoToolInput) throws(CryptoToolError) -> [String: Any] {
        switch command {
        case "smileid-sign": try smileIDSign(input)
        case "smileid-verify": try smileIDVerify(input)
        case "smileid-sign-files": try smileIDSignFiles(input)
        case "enc1-encrypt": try enc1Encrypt(input)
        case "enc1-decrypt": try enc1Decrypt(input)
        case "e2ee-open": try e2eeOpen(input)
        case "bm-derive": try bmDerive(input)
        case "bm-open-token": try bmOpenToken(input)
        case "merkle": try merkle(input)
        default: throw CryptoToolError("unknown_command", "unknown command; use one of \(commands.joined(separator: ", "))")
        }
    }

    static func encode(_ object: [String: Any]) -> Data {
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data(#"{"error":"internal","message":"unencodable output"}"#.utf8)
        return data + Data("\n".utf8)
    }
}
