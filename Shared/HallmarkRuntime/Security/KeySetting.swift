import Foundation
import HallmarkCore
import HallmarkCrypto

/// A secret key given as b64 of at least 32 bytes, in a file (`<name>_FILE`, preferred) or in
/// the variable itself. Errors name the variable, never the value.
public enum KeySetting {
    /// The key from `env`; nil when neither `<variable>_FILE` nor `<variable>` is set.
    public static func read(_ env: [String: String], variable: String) throws(ConfigurationError) -> Data? {
        let fileVariable = "\(variable)_FILE"
        let text: String, source: String
        if let path = env[fileVariable], !path.isEmpty {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(variable: fileVariable, reason: "cannot be read")
            }
            (text, source) = (String(decoding: data, as: UTF8.self), fileVariable)
        } else if let value = env[variable], !value.isEmpty {
            (text, source) = (value, variable)
        } else {
            return nil
        }
        guard let key = try? Base64.decode(text.trimmingCharacters(in: .whitespacesAndNewlines)), key.count >= 32 else {
            throw ConfigurationError(variable: source, reason: "is not b64 of at least 32 bytes")
        }
        return key
    }
}
