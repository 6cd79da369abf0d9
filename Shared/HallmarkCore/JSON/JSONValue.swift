/// A JSON value read by ``JSONReader``: what a stage needs to check a message's fields
/// strictly, without decoding it twice.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number as written (it matched the JSON number grammar).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The member `key` of an object (nil for a missing member or a non-object).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    public var string: String? {
        guard case .string(let s) = self else { return nil }
        return s
    }

    public var object: [String: JSONValue]? {
        guard case .object(let o) = self else { return nil }
        return o
    }

    public var array: [JSONValue]? {
        guard case .array(let a) = self else { return nil }
        return a
    }

    public var isNull: Bool { self == .null }

    /// The number as an `Int` when it is written as an integer (no fraction, no exponent)
    /// and fits; nil otherwise, so `4.0`, `1e2`, `true` and `"7"` are not integers.
    public var integer: Int? {
        guard case .number(let text) = self, !Self.hasFractionOrExponent(text) else { return nil }
        return Int(text)
    }

    /// Whether number text is written with a fraction or an exponent (`4.0`, `1e2`).
    static func hasFractionOrExponent(_ text: String) -> Bool { text.utf8.contains { $0 == 0x2E || $0 | 0x20 == 0x65 } }
}

extension JSONValue {
    /// The number as a `UInt64` when it is written as plain digits and fits; nil otherwise
    /// (`-0`, `4.0`, `1e2`, strings).
    public var unsignedInteger: UInt64? {
        guard case .number(let text) = self, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt64(text)
    }

    /// An optional string member: `.some(nil)` when it is absent or null, `.some(s)` for a
    /// string, nil for any other value.
    public static func optionalString(_ member: JSONValue?) -> String?? {
        switch member {
        case nil, .null?: return .some(nil)
        case .string(let s)?: return .some(s)
        default: return nil
        }
    }
}
