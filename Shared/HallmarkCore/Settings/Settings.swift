import Foundation

/// The one reader of `HALLMARK_…` settings: typed, with a default for every setting and a
/// range for every number, so nonsense (a zero retention, a negative pool, `12abc`) stops
/// start-up with a ``ConfigurationError`` that names the variable and never echoes its value.
///
/// An unset variable and an empty one both mean "use the default".
public struct Settings: Sendable {
    /// The variables read.
    public let environment: [String: String]

    public init(_ environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The raw value, or nil when unset or empty.
    public func string(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// The value, or `defaultValue`.
    public func string(_ name: String, default defaultValue: String) -> String {
        string(name) ?? defaultValue
    }

    /// An integer in `range`, or `defaultValue` when unset.
    public func integer(
        _ name: String, default defaultValue: Int, in range: ClosedRange<Int>
    ) throws(ConfigurationError)
        -> Int
    {
        try integer(name, in: range) ?? defaultValue
    }

    /// An integer in `range`, or nil when unset.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
        guard let raw = string(name) else { return nil }
        guard let value = Int(raw.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
            throw ConfigurationError(variable: name, reason: "must be an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// A duration given in milliseconds (`…_MS`), within `range` milliseconds.
    public func milliseconds(
        _ name: String, default defaultValue: Duration, in range: ClosedRange<Int>
    )
        throws(ConfigurationError) -> Duration
    {
        guard let ms = try integer(name, in: range) else { return defaultValue }
        return .milliseconds(ms)
    }

    /// A duration given in seconds (`…_SECONDS`, `…_S`), within `range` seconds.
    public func seconds(
        _ name: String, default defaultValue: Duration, in range: ClosedRange<Int>
    )
        throws(ConfigurationError) -> Duration
    {
        guard let s = try integer(name, in: range) else { return defaultValue }
        return .seconds(s)
    }

    /// `true`/`1`/`yes`/`on` or `false`/`0`/`no`/`off`.
    public func flag(_ name: String, default defaultValue: Bool) throws(ConfigurationError) -> Bool {
        guard let raw = string(name)?.lowercased() else { return defaultValue }
        switch raw {
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw ConfigurationError(variable: name, reason: "must be true or false")
        }
    }

    /// A comma-separated list (blank items dropped), or `defaultValue` when unset.
    public func list(_ name: String, default defaultValue: [String]) -> [String] {
        guard let raw = string(name) else { return defaultValue }
        return raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A Kafka topic name (`[A-Za-z0-9._-]{1,249}`), or `defaultValue`.
    public func topic(_ name: String, default defaultValue: String) throws(ConfigurationError) -> String {
        let value = string(name, default: defaultValue)
        guard Self.isTopicName(value) else {
            throw ConfigurationError(variable: name, reason: "must be a topic name ([A-Za-z0-9._-], at most 249)")
        }
        return value
    }

    /// Topic names, comma-separated, or `defaultValue`.
    public func topics(_ name: String, default defaultValue: [String]) throws(ConfigurationError) -> [String] {
        let values = list(name, default: defaultValue)
        guard values.allSatisfy(Self.isTopicName) else {
            throw ConfigurationError(variable: name, reason: "must be topic names ([A-Za-z0-9._-]) separated by commas")
        }
        return values
    }

    /// A PostgreSQL identifier Hallmark creates itself (`[a-z_][a-z0-9_]{0,62}`), or `defaultValue`.
    public func identifier(_ name: String, default defaultValue: String) throws(ConfigurationError) -> String {
        let value = string(name, default: defaultValue)
        guard Self.isIdentifier(value) else {
            throw ConfigurationError(variable: name, reason: "must match [a-z_][a-z0-9_]* (at most 63 characters)")
        }
        return value
    }

    static func isTopicName(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 249 && s != "." && s != ".."
            && s.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x2D
            }
    }

    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.utf8.first, s.utf8.count <= 63, first == 0x5F || (first >= 0x61 && first <= 0x7A) else {
            return false
        }
        return s.utf8.allSatisfy { c in c == 0x5F || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) }
    }
}
