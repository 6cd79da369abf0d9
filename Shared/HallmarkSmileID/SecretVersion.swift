/// One version of the SmileID signing secret. Its descriptions never show the secret.
public struct SecretVersion: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The version's name, e.g. `v2` (safe to log and to put in results).
    public let version: String
    /// The secret itself; only the key deriver reads it.
    let secret: String

    public init(version: String, secret: String) {
        self.version = version
        self.secret = secret
    }

    public var description: String { "SecretVersion(\(version), <redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["version": version]) }
}
