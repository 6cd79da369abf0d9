/// A witness that cannot start or cannot keep its state: a reason without secrets.
package struct WitnessError: Error, Sendable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
