/// A property an input broke: which one, in words that name no input bytes beyond what the
/// property is about (the input itself is saved by libFuzzer next to the report).
public struct FuzzFinding: Error, Sendable, CustomStringConvertible {
    public let property: String

    public init(_ property: String) { self.property = property }

    public var description: String { "fuzz finding: \(property)" }
}

/// Throws a finding unless `condition` holds.
@inline(__always)
func require(_ condition: Bool, _ property: @autoclosure () -> String) throws(FuzzFinding) {
    if !condition { throw FuzzFinding(property()) }
}
