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
        try valueIfSet(.integer(name, default: range.lowerBound, in: range, doc: ""))
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
        try value(.flag(name, default: defaultValue, doc: ""))
    }

    /// A comma-separated list (blank items dropped), or `defaultValue` when unset.
    public func list(_ name: String, default defaultValue: [String]) -> [String] {
        guard let raw = string(name) else { return defaultValue }
        return raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A Kafka topic name (`[A-Za-z0-9._-]{1,249}`), or `defaultValue`.
    public func topic(_ name: String, default defaultValue: String) throws(ConfigurationError) -> String {
        try value(.topic(name, default: defaultValue, doc: ""))
    }

    /// Topic names, comma-separated, or `defaultValue`.
    public func topics(_ name: String, default defaultValue: [String]) throws(ConfigurationError) -> [String] {
        try value(.topics(name, default: defaultValue, doc: ""))
    }

    /// A PostgreSQL identifier Hallmark creates itself (`[a-z_][a-z0-9_]{0,62}`), or `defaultValue`.
    public func identifier(_ name: String, default defaultValue: String) throws(ConfigurationError) -> String {
        try value(.identifier(name, default: defaultValue, doc: ""))
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
