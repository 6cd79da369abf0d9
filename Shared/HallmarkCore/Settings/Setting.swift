import Foundation

/// One `HALLMARK_…` variable, declared once: its name, default, accepted values and doc.
/// Reading (``Settings/value(_:)``), `hallmark config` and the docs check all derive from
/// the declaration.
///
/// An unset variable and an empty one both mean the default.
public struct Setting<Value: Sendable>: Sendable {
    /// The variable's name.
    public let name: String
    /// What an unset variable means.
    public let defaultValue: Value
    /// What the variable does, in one sentence.
    public let doc: String
    /// The values taken, as shown to an operator (e.g. `1...65536`).
    public let accepted: String
    /// Whether its value may hold a secret (a password in a URL, a key): never shown.
    public private(set) var isSecret = false
    let parse: @Sendable (String) -> Value?
    let show: @Sendable (Value) -> String

    public init(
        _ name: String, default defaultValue: Value, accepted: String, doc: String,
        show: @escaping @Sendable (Value) -> String = { "\($0)" },
        parse: @escaping @Sendable (String) -> Value?
    ) {
        self.name = name
        self.defaultValue = defaultValue
        self.accepted = accepted
        self.doc = doc
        self.show = show
        self.parse = parse
    }

    /// The same setting under another name (a stage's own, e.g.
    /// `HALLMARK_AGGREGATOR_INTAKE_MAX_BATCH` for `HALLMARK_MAX_BATCH`), with another default.
    public func renamed(_ name: String, default defaultValue: Value? = nil, doc: String? = nil) -> Setting {
        var copy = Setting(
            name, default: defaultValue ?? self.defaultValue, accepted: accepted, doc: doc ?? self.doc, show: show,
            parse: parse)
        copy.isSecret = isSecret
        return copy
    }

    /// The same setting, its value never shown (``SettingDescription/shown(in:)``).
    public func secret() -> Setting {
        var copy = self
        copy.isSecret = true
        return copy
    }

    /// The declaration without its type, for listings.
    public var description: SettingDescription {
        SettingDescription(name: name, defaultValue: show(defaultValue), accepted: accepted, doc: doc, isSecret: isSecret)
    }
}

/// A declared setting as text: what `hallmark config` lists.
public struct SettingDescription: Sendable, Hashable {
    public let name: String
    /// The default as shown; empty for none.
    public let defaultValue: String
    public let accepted: String
    public let doc: String
    public let isSecret: Bool

    /// A description of its own: a family of variables no one declaration covers, such as
    /// `HALLMARK_SIGNER_SECRET_<VERSION>`.
    public init(name: String, defaultValue: String = "", accepted: String, doc: String, isSecret: Bool) {
        self.name = name
        self.defaultValue = defaultValue
        self.accepted = accepted
        self.doc = doc
        self.isSecret = isSecret
    }

    /// The variable's value in `environment` as it may be shown: nil when unset, `(set)` for
    /// a secret.
    public func shown(in environment: [String: String]) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return isSecret ? "(set)" : value
    }
}

extension Setting where Value == Int {
    /// An integer in `range`.
    public static func integer(_ name: String, default value: Int, in range: ClosedRange<Int>, doc: String) -> Setting {
        precondition(range.contains(value), "\(name)'s default is outside its range")
        return Setting(name, default: value, accepted: "an integer in \(range.lowerBound)...\(range.upperBound)", doc: doc) {
            raw in
            Int(raw.trimmingCharacters(in: .whitespaces)).flatMap { range.contains($0) ? $0 : nil }
        }
    }
}

extension Setting where Value == Duration {
    /// A duration in milliseconds (`…_MS`), within `range` milliseconds.
    public static func milliseconds(
        _ name: String, default value: Duration, in range: ClosedRange<Int>, doc: String
    ) -> Setting {
        Setting(
            name, default: value, accepted: "an integer in \(range.lowerBound)...\(range.upperBound) (milliseconds)", doc: doc,
            show: { "\(Int($0 / .milliseconds(1)))" }
        ) { raw in
            Int(raw.trimmingCharacters(in: .whitespaces)).flatMap { range.contains($0) ? .milliseconds($0) : nil }
        }
    }

    /// A duration in seconds (`…_SECONDS`), within `range` seconds.
    public static func seconds(_ name: String, default value: Duration, in range: ClosedRange<Int>, doc: String) -> Setting {
        Setting(
            name, default: value, accepted: "an integer in \(range.lowerBound)...\(range.upperBound) (seconds)", doc: doc,
            show: { "\($0.components.seconds)" }
        ) { raw in
            Int(raw.trimmingCharacters(in: .whitespaces)).flatMap { range.contains($0) ? .seconds($0) : nil }
        }
    }
}

extension Setting where Value == String {
    /// Any text.
    public static func text(_ name: String, default value: String, doc: String) -> Setting {
        Setting(name, default: value, accepted: "text", doc: doc) { $0 }
    }

    /// A Kafka topic name.
    public static func topic(_ name: String, default value: String, doc: String) -> Setting {
        precondition(Settings.isTopicName(value))
        return Setting(name, default: value, accepted: "a topic name ([A-Za-z0-9._-], at most 249)", doc: doc) {
            Settings.isTopicName($0) ? $0 : nil
        }
    }

    /// A PostgreSQL identifier Hallmark creates itself.
    public static func identifier(_ name: String, default value: String, doc: String) -> Setting {
        precondition(Settings.isIdentifier(value))
        return Setting(name, default: value, accepted: "an identifier, [a-z_][a-z0-9_]* (at most 63 characters)", doc: doc) {
            Settings.isIdentifier($0) ? $0 : nil
        }
    }
}

extension Setting where Value == String? {
    /// Text with no default.
    public static func optionalText(_ name: String, doc: String) -> Setting {
        Setting(name, default: nil, accepted: "text", doc: doc, show: { $0 ?? "" }) { $0 }
    }
}

extension Setting where Value == [String] {
    /// Items separated by commas (blank items dropped), each taken by `accepts`.
    public static func list(
        _ name: String, default value: [String], accepted: String, doc: String,
        accepts: @escaping @Sendable (String) -> Bool = { _ in true }
    ) -> Setting {
        Setting(name, default: value, accepted: accepted, doc: doc, show: { $0.joined(separator: ",") }) { raw in
            let values = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            return values.allSatisfy(accepts) ? values : nil
        }
    }

    /// Topic names, comma-separated.
    public static func topics(_ name: String, default value: [String], doc: String) -> Setting {
        Setting(
            name, default: value, accepted: "topic names ([A-Za-z0-9._-]) separated by commas", doc: doc,
            show: { $0.joined(separator: ",") }
        ) { raw in
            let values = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            return values.allSatisfy(Settings.isTopicName) ? values : nil
        }
    }
}

extension Setting where Value == Bool {
    /// `true`/`1`/`yes`/`on` or `false`/`0`/`no`/`off`.
    public static func flag(_ name: String, default value: Bool, doc: String) -> Setting {
        Setting(name, default: value, accepted: "true or false", doc: doc) { raw in
            switch raw.lowercased() {
            case "1", "true", "yes", "on": true
            case "0", "false", "no", "off": false
            default: nil
            }
        }
    }
}

extension Settings {
    /// The setting's value, or its default when unset; a value it does not take throws,
    /// naming the variable and what it takes, never echoing the value.
    public func value<Value>(_ setting: Setting<Value>) throws(ConfigurationError) -> Value {
        guard let raw = string(setting.name) else { return setting.defaultValue }
        guard let value = setting.parse(raw) else {
            throw ConfigurationError(variable: setting.name, reason: "must be \(setting.accepted)")
        }
        return value
    }

    /// The setting's value when set, else nil.
    public func valueIfSet<Value>(_ setting: Setting<Value>) throws(ConfigurationError) -> Value? {
        guard string(setting.name) != nil else { return nil }
        return try value(setting)
    }
}
