import Foundation
import HallmarkCore
import HallmarkCrypto

/// A witness's settings, each declared once in ``settings``.
package struct WitnessConfiguration: DeclaredSettings {
    /// The witness's key name (its cosignatures' name).
    package var name: String = declared(\.name)
    /// Its private key's file.
    package var keyFile: String? = declared(\.keyFile)
    /// The file of the logs it follows.
    package var logsFile: String? = declared(\.logsFile)
    /// Its state file.
    package var stateFile: String = declared(\.stateFile)
    /// Where it listens (`HALLMARK_WITNESS_LISTEN`, one variable for both).
    package var host: String = hostAndPort(listen.defaultValue)!.0
    package var port: Int = hostAndPort(listen.defaultValue)!.1

    package init() {}

    static let listen = Setting(
        "HALLMARK_WITNESS_LISTEN", default: "127.0.0.1:7380", accepted: "host:port", doc: "where the witness listens"
    ) { WitnessConfiguration.hostAndPort($0) == nil ? nil : $0 }

    /// Every setting, in the order `hallmark config` lists them.
    package static let settings: [ConfigurationSetting<Self>] = [
        .bind(
            \.name,
            Setting(
                "HALLMARK_WITNESS_NAME", default: "hallmark.local/witness", accepted: "a schema-less URL without spaces or '+'",
                doc: "the witness's name: its cosignatures' key name and its vkey's"
            ) { NoteVerifierKey.isValidName($0) ? $0 : nil }),
        .bind(
            \.keyFile,
            .optionalText(
                "HALLMARK_WITNESS_KEY_FILE",
                doc: "the witness's private key file (hallmark witness key --out); required to serve")),
        .bind(
            \.logsFile,
            .optionalText(
                "HALLMARK_WITNESS_LOGS_FILE",
                doc: "the logs the witness follows: one 'log <vkey>' line each (C2SP tlog-policy); required to serve")),
        .bind(
            \.stateFile,
            .text(
                "HALLMARK_WITNESS_STATE_FILE", default: "witness-state.json",
                doc: "where the witness keeps each log's latest cosigned checkpoint (and a .lock beside it)")),
        .custom([listen.description]) { c, s throws(ConfigurationError) in
            (c.host, c.port) = hostAndPort(try s.value(listen))!
        },
    ]

    package static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> WitnessConfiguration {
        try WitnessConfiguration().applying(Settings(env))
    }

    static func hostAndPort(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port), colon > text.startIndex
        else { return nil }
        return (String(text[..<colon]), port)
    }

    /// The log vkeys of a logs file: `log <vkey> [<url>]` lines (C2SP tlog-policy's; other
    /// policy lines are ignored), `#` comments and blank lines.
    package static func logs(in text: String, variable: String) throws(ConfigurationError) -> [NoteVerifierKey] {
        var keys: [NoteVerifierKey] = []
        for line in text.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let first = words.first, !first.hasPrefix("#"), first == "log" else { continue }
            guard words.count >= 2, let key = try? NoteVerifierKey(parsing: String(words[1])), key.algorithm == .ed25519 else {
                throw ConfigurationError(variable: variable, reason: "a 'log' line needs an Ed25519 vkey")
            }
            keys.append(key)
        }
        guard !keys.isEmpty else { throw ConfigurationError(variable: variable, reason: "names no log ('log <vkey>' lines)") }
        return keys
    }
}
