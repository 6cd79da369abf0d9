/// A configuration whose settings are declared once each, in ``settings``: adding a setting
/// is a property and its entry there. The listing (``variables``), the reading
/// (``applying(_:)``), the properties' defaults (``declared(_:)``) and the variables that
/// place a process (``placementEnvironment``) are derived from the list; checks across
/// settings stay in the configuration's own `fromEnvironment`, after the generic read.
public protocol DeclaredSettings: Sendable {
    /// Every setting, in the order `hallmark config` lists them.
    static var settings: [ConfigurationSetting<Self>] { get }
}

extension DeclaredSettings {
    /// Every variable listed, in order.
    public static var variables: [SettingDescription] { settings.flatMap(\.descriptions) }

    /// The declared default of the property at `keyPath`: what its declaration in
    /// ``settings`` gives, so a property's initial value is never written twice.
    public static func declared<Value>(_ keyPath: KeyPath<Self, Value>) -> Value {
        guard let value = binding(keyPath)?.defaultValue as? Value else {
            preconditionFailure("\(keyPath) has no declared setting")
        }
        return value
    }

    /// The variable bound to the property at `keyPath`, e.g. for an error naming it.
    public static func variable(_ keyPath: PartialKeyPath<Self>) -> String {
        guard let name = binding(keyPath)?.name else { preconditionFailure("\(keyPath) has no declared setting") }
        return name
    }

    /// The property at `keyPath` as `settings` set it (converted as declared), read alone.
    public static func value<Value>(
        _ keyPath: KeyPath<Self, Value>, in settings: Settings
    ) throws(ConfigurationError)
        -> Value
    {
        guard let read = binding(keyPath)?.value else { preconditionFailure("\(keyPath) has no declared setting") }
        guard let value = try read(settings) as? Value else { preconditionFailure("\(keyPath) is not of its setting's type") }
        return value
    }

    /// This configuration with every declared setting read from `settings` (an unset
    /// variable gives the declared default), in order; the first bad one throws.
    public func applying(_ settings: Settings) throws(ConfigurationError) -> Self {
        var copy = self
        for setting in Self.settings { try setting.read(&copy, settings) }
        return copy
    }

    /// The variables that place a process as this configuration does (its schema, its
    /// topics), with this configuration's values: what a test or a bench hands the process it
    /// starts.
    public var placementEnvironment: [String: String] {
        Self.settings.reduce(into: [:]) { environment, setting in
            environment.merge(setting.placement?(self) ?? [:]) { $1 }
        }
    }

    private static func binding(_ keyPath: AnyKeyPath) -> ConfigurationSetting<Self>? {
        settings.first { $0.keyPath.map { $0 as AnyKeyPath } == keyPath }
    }
}
