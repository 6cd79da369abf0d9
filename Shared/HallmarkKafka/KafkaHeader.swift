/// One record header: a name and its bytes. Kafka allows a name more than once; the order is
/// kept.
public struct KafkaHeader: Sendable, Hashable {
    public var name: String
    public var value: [UInt8]

    public init(_ name: String, _ value: [UInt8]) {
        self.name = name
        self.value = value
    }

    /// A header whose value is text (UTF-8).
    public init(_ name: String, text: String) { self.init(name, Array(text.utf8)) }

    /// The value as UTF-8 text, when it is.
    public var text: String? { String(validating: value, as: UTF8.self) }
}
