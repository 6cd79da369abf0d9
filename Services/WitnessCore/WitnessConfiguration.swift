import Foundation
import HallmarkCore
import HallmarkCrypto

/// A witness's settings, each declared once.
package struct WitnessConfiguration: Sendable {
    /// The witness's key name (its cosignatures' name).
    package var name = Variable.name.defaultValue
    /// Its private key's file.
    package var keyFile: String?
    /// The file of the logs it follows.
    package var logsFile: String?
    /// Its state file.
    package var stateFile = Variable.stateFile.defaultValue
    /// Where it listens.
    package var host = "127.0.0.1"
    package var port = 7380

    package init() {}

    package enum Variable {
        package static let name = Setting(
            "HALLMARK_WITNESS_NAME", default: "hallmark.local/witness", accepted: "a schema-less URL without spaces or '+'",
            doc: "the witness's name: its cosignatures' key name and its vkey's"
        ) { NoteVerifierKey.isValidName($0) ? $0 : nil }
        package static let keyFile = Setting.optionalText(
            "HALLMARK_WITNESS_KEY_FILE", doc: "the witness's private key file (hallmark witness key --out); required to serve")
        package static let logsFile = Setting.optionalText(
            "HALLMARK_WITNESS_LOGS_FILE",
            doc: "the logs the witness follows: one 'log <vkey>' line each (C2SP tlog-policy); required to serve")
        package static let stateFile = Setting.text(
            "HALLMARK_WITNESS_STATE_FILE", default: "witness-state.json",
            doc: "where the witness keeps each log's latest cosigned checkpoint (and a .lock beside it)")
        package static let listen = Setting(
            "HALLMARK_WITNESS_LISTEN", default: "127.0.0.1:7380", accepted: "host:port", doc: "where the witness listens"
        ) { WitnessConfiguration.hostAndPort($0) == nil ? nil : $0 }

        package static var all: [SettingDescription] {
            [name.description, keyFile.description, logsFile.description, stateFile.description, listen.description]
        }
    }

    package static func fromEnvironment(_ env: [String: String]) throws(ConfigurationError) -> WitnessConfiguration {
        let s = Settings(env)
        var c = WitnessConfiguration()
        c.name = try s.value(Variable.name)
        c.keyFile = try s.value(Variable.keyFile)
        c.logsFile = try s.value(Variable.logsFile)
        c.stateFile = try s.value(Variable.stateFile)
        (c.host, c.port) = hostAndPort(try s.value(Variable.listen))!
        return c
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
