import Foundation

/// A value given in a file (`<name>_FILE`, preferred: a mounted secret) or in the variable
/// `<name>` itself, declared once: keys, key lists, key-encryption keys.
public struct FileSetting: Sendable {
    /// The variable that holds the value itself.
    public let name: String
    /// What the value is, e.g. `the key of token request ids (b64 of 32 random bytes)`.
    public let doc: String
    /// Whether the value is a secret (a key): never shown. Public keys are not.
    public let isSecret: Bool

    public init(_ name: String, doc: String, secret: Bool = true) {
        self.name = name
        self.doc = doc
        self.isSecret = secret
    }

    /// `<name>_FILE`: the file's path.
    public var file: Setting<String?> { .optionalText(name + "_FILE", doc: "a file holding \(doc)") }

    /// `<name>`: the value itself, read when `<name>_FILE` is not set.
    public var inline: Setting<String?> {
        let setting = Setting<String?>.optionalText(name, doc: "\(doc), in the variable (else \(name)_FILE)")
        return isSecret ? setting.secret() : setting
    }

    /// Both variables, the file first, for listings.
    public var all: [SettingDescription] { [file.description, inline.description] }

    /// The text and the variable it came from: the file's contents when `<name>_FILE` is set,
    /// else `<name>`; nil when neither is.
    /// - Throws: ``ConfigurationError`` naming `<name>_FILE` when the file cannot be read.
    public func text(in settings: Settings) throws(ConfigurationError) -> (text: String, variable: String)? {
        if let path = try settings.value(file) {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(variable: file.name, reason: "cannot be read")
            }
            return (String(decoding: data, as: UTF8.self), file.name)
        }
        return try settings.value(inline).map { ($0, name) }
    }
}
