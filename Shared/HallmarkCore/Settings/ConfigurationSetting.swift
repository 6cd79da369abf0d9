/// One entry of a configuration's ``DeclaredSettings/settings``: a property bound to the
/// ``Setting`` that fills it, so the variable's name, default, accepted values and doc are
/// written once, beside the property they set. Reading, `hallmark config`'s listing, the
/// property's default and the placement environment all derive from the list.
public struct ConfigurationSetting<Root>: Sendable {
    /// The variables listed for it, in order (none for a shared variable listed elsewhere).
    public let descriptions: [SettingDescription]
    /// The variable's name, also when it is listed elsewhere.
    let name: String?
    let keyPath: (AnyKeyPath & Sendable)?
    let defaultValue: (any Sendable)?
    let read: @Sendable (inout Root, Settings) throws(ConfigurationError) -> Void
    /// The bound property's value alone, for a command that needs one setting.
    let value: (@Sendable (Settings) throws(ConfigurationError) -> any Sendable)?
    /// The variable and the value as it takes it, for a setting that places a process.
    let placement: (@Sendable (Root) -> [String: String])?

    /// `keyPath` takes `setting`'s value, its default when unset.
    /// - Parameter placing: whether the variable places a process (a schema, a topic): it is
    ///   in ``DeclaredSettings/placementEnvironment``.
    public static func bind<Value: Sendable>(
        _ keyPath: WritableKeyPath<Root, Value> & Sendable, _ setting: Setting<Value>, placing: Bool = false
    ) -> ConfigurationSetting {
        let read: @Sendable (inout Root, Settings) throws(ConfigurationError) -> Void = {
            root, settings throws(ConfigurationError) in
            root[keyPath: keyPath] = try settings.value(setting)
        }
        let value: @Sendable (Settings) throws(ConfigurationError) -> any Sendable = { settings throws(ConfigurationError) in
            try settings.value(setting)
        }
        let placement: @Sendable (Root) -> [String: String] = { root in [setting.name: setting.show(root[keyPath: keyPath])] }
        return ConfigurationSetting(
            descriptions: [setting.description], name: setting.name, keyPath: keyPath, defaultValue: setting.defaultValue,
            read: read, value: value, placement: placing ? placement : nil)
    }

    /// `keyPath` takes `setting`'s value converted (hours to a `Duration`, seconds to a
    /// `TimeInterval`); its default is the declared default converted.
    public static func bind<Value: Sendable, Raw>(
        _ keyPath: WritableKeyPath<Root, Value> & Sendable, _ setting: Setting<Raw>,
        as convert: @escaping @Sendable (Raw) throws(ConfigurationError) -> Value
    ) -> ConfigurationSetting {
        guard let defaultValue = try? convert(setting.defaultValue) else {
            preconditionFailure("\(setting.name)'s default does not convert")
        }
        let read: @Sendable (inout Root, Settings) throws(ConfigurationError) -> Void = {
            root, settings throws(ConfigurationError) in
            root[keyPath: keyPath] = try convert(try settings.value(setting))
        }
        let value: @Sendable (Settings) throws(ConfigurationError) -> any Sendable = { settings throws(ConfigurationError) in
            try convert(try settings.value(setting))
        }
        return ConfigurationSetting(
            descriptions: [setting.description], name: setting.name, keyPath: keyPath, defaultValue: defaultValue,
            read: read, value: value, placement: nil)
    }

    /// A variable every service reads, listed with those (``Setting`` declared by the runtime,
    /// e.g. `HALLMARK_AUDIT_TOPIC`), that this configuration keeps a copy of.
    public static func shared<Value: Sendable>(
        _ keyPath: WritableKeyPath<Root, Value> & Sendable, _ setting: Setting<Value>, placing: Bool = false
    ) -> ConfigurationSetting {
        let bound = bind(keyPath, setting, placing: placing)
        return ConfigurationSetting(
            descriptions: [], name: bound.name, keyPath: keyPath, defaultValue: bound.defaultValue, read: bound.read,
            value: bound.value, placement: bound.placement)
    }

    /// Variables read by code of their own (a key file and its inline twin, a family of
    /// variables under a prefix, a group of settings of its own type): listed as
    /// `descriptions`, read by `read`.
    /// - Parameter placement: the variables among them that place a process, with their values.
    public static func custom(
        _ descriptions: [SettingDescription],
        placement: (@Sendable (Root) -> [String: String])? = nil,
        read: @escaping @Sendable (inout Root, Settings) throws(ConfigurationError) -> Void
    ) -> ConfigurationSetting {
        ConfigurationSetting(
            descriptions: descriptions, name: nil, keyPath: nil, defaultValue: nil, read: read, value: nil,
            placement: placement)
    }
}
