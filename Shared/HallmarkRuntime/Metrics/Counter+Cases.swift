import Metrics

extension Counter {
    /// One counter per case of `Key`, each with the case's raw value as its last dimension
    /// (`reason` unless told): how a result's reasons are counted.
    public static func perCase<Key: CaseIterable & RawRepresentable & Hashable>(
        _: Key.Type, label: String, dimensions: [(String, String)], dimension: String = "reason"
    ) -> [Key: Counter] where Key.RawValue == String {
        Dictionary(
            uniqueKeysWithValues: Key.allCases.map {
                ($0, Counter(label: label, dimensions: dimensions + [(dimension, $0.rawValue)]))
            })
    }
}
