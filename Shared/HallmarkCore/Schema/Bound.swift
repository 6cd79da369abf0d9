import Foundation

/// A `minimum` or `maximum`. An integer bound is compared exactly with an integer value, so
/// bounds beyond 2^53 (a bigint counter's 9223372036854775807) hold to the last digit;
/// anything else compares as `Double`.
struct Bound: Sendable {
    let value: Double
    /// The bound as a sign and digits without leading zeros, when written as an integer.
    let integer: (negative: Bool, digits: Substring)?
    /// The bound as an `Int`, when it is an integer that fits.
    let small: Int?

    init?(_ rule: JSONValue) {
        guard case .number(let text) = rule, let value = Double(text) else { return nil }
        self.value = value
        integer = Self.integerDigits(text)
        small = integer != nil ? Int(text) : nil
    }

    /// How `text` orders against the bound: `.orderedAscending` when the value is below it.
    func compare(_ text: String) -> ComparisonResult {
        // The common case, cheaply: an integer bound and a value that is an `Int` as written
        // (JSON numbers have no `+` and no leading zeros, so `Int(_:)` reads them exactly).
        if let bound = small, let v = Int(text) {
            return v < bound ? .orderedAscending : v > bound ? .orderedDescending : .orderedSame
        }
        if let bound = integer, let v = Self.integerDigits(text) {
            if v.negative != bound.negative { return v.negative ? .orderedAscending : .orderedDescending }
            let magnitude = Self.compareMagnitude(v.digits, bound.digits)
            return v.negative ? magnitude.reversed : magnitude
        }
        guard let x = Double(text) else { return .orderedSame }
        return x < value ? .orderedAscending : x > value ? .orderedDescending : .orderedSame
    }

    /// Sign and digits of an integer literal (no fraction or exponent); `-0` is `0`.
    static func integerDigits(_ text: String) -> (negative: Bool, digits: Substring)? {
        guard !text.utf8.contains(where: { $0 == 0x2E || $0 | 0x20 == 0x65 }) else { return nil }
        var digits = Substring(text)
        let negative = digits.first == "-"
        if negative { digits = digits.dropFirst() }
        while digits.count > 1, digits.first == "0" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return (negative && digits != "0", digits)
    }

    static func compareMagnitude(_ a: Substring, _ b: Substring) -> ComparisonResult {
        if a.count != b.count { return a.count < b.count ? .orderedAscending : .orderedDescending }
        return a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
    }
}

extension ComparisonResult {
    fileprivate var reversed: ComparisonResult {
        switch self {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }
}
