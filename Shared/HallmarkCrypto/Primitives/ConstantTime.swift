import Foundation

/// Comparisons whose running time does not depend on where two byte strings differ.
public enum ConstantTime {
    /// True when `a` and `b` are equal. Runs in time dependent only on the lengths.
    public static func equal(_ a: some DataProtocol, _ b: some DataProtocol) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for (x, y) in zip(a, b) { diff |= x ^ y }
        return diff == 0
    }
}
