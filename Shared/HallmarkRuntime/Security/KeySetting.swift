import Foundation
import HallmarkCore
import HallmarkCrypto

/// A secret key given as b64 of at least 32 bytes, in a file (`<name>_FILE`, preferred) or in
/// the variable itself. Errors name the variable, never the value.
public enum KeySetting {
    /// The key `setting` declares, from `env`; nil when neither of its variables is set.
    public static func read(_ env: [String: String], _ setting: FileSetting) throws(ConfigurationError) -> Data? {
        guard let (text, source) = try setting.text(in: Settings(env)) else { return nil }
        guard let key = try? Base64.decode(text.trimmingCharacters(in: .whitespacesAndNewlines)), key.count >= 32 else {
            throw ConfigurationError(variable: source, reason: "is not b64 of at least 32 bytes")
        }
        return key
    }
}
