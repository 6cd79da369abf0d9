import HallmarkCore

/// The units a Kafka value holds: a batch carrier's items (DESIGN §2), each as its own JSON
/// object, or the value itself when it is a single message. Tests that read a topic unit by
/// unit read carriers and single messages alike.
public enum CarriedUnits {
    /// The units of `value`; empty when it is not a JSON object.
    public static func of(_ value: [UInt8]) -> [[String: JSONValue]] {
        guard let object = (try? JSONReader.parse(value))?.object else { return [] }
        guard let items = object["items"]?.array else { return [object] }
        return items.compactMap(\.object)
    }

    /// The members of `value`'s envelope: a carrier's own (its items aside), or the message's.
    public static func envelope(_ value: [UInt8]) -> Set<String> {
        Set((try? JSONReader.parse(value))?.object?.keys.filter { $0 != "items" } ?? [])
    }
}
