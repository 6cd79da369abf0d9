/// An immutable value shared by a compiled schema's nodes, so that a ``Borrowed`` can lend it.
final class Shared<Value: Sendable>: Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
