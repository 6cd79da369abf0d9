extension SchemaNode {
    /// A `type` rule's kinds as bits: one test per value, where a `Set<Kind>` was walked with
    /// a closure per member.
    struct Kinds: Sendable {
        private let bits: UInt8

        init(_ kinds: some Sequence<Kind>) { bits = kinds.reduce(0) { $0 | Self.bit($1) } }

        /// Whether `value` is of one of the kinds (an integer is a number written without
        /// fraction or exponent).
        func contains(_ value: JSONValue) -> Bool {
            switch value {
            case .null: return has(.null)
            case .bool: return has(.boolean)
            case .object: return has(.object)
            case .array: return has(.array)
            case .string: return has(.string)
            case .number:
                return has(.number) || has(.integer) && (value.integer != nil || SchemaNode.isLargeInteger(value))
            }
        }

        func has(_ kind: Kind) -> Bool { bits & Self.bit(kind) != 0 }

        /// The kinds' names, sorted and joined by `/`, as a violation names them.
        var names: String { Kind.allCases.filter(has).map(\.rawValue).sorted().joined(separator: "/") }

        private static func bit(_ kind: Kind) -> UInt8 {
            switch kind {
            case .null: 1
            case .boolean: 2
            case .object: 4
            case .array: 8
            case .string: 16
            case .number: 32
            case .integer: 64
            }
        }
    }
}
