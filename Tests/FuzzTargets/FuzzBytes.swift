/// A cursor over a fuzz input that never runs out: past the end it reads zeros, so every
/// input, however short, means something.
struct FuzzBytes {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func byte() -> UInt8 {
        defer { position += 1 }
        return position < bytes.count ? bytes[position] : 0
    }

    mutating func u16() -> UInt16 { UInt16(byte()) << 8 | UInt16(byte()) }

    mutating func u64() -> UInt64 { (0..<8).reduce(0) { v, _ in v << 8 | UInt64(byte()) } }

    /// The byte `offset` places after the cursor (wrapping), without moving it: a stream of
    /// leaf contents the input shapes.
    func byte(at offset: Int) -> UInt8 {
        let rest = bytes.count - min(position, bytes.count)
        return rest == 0 ? 0 : bytes[min(position, bytes.count) + offset % rest]
    }

    /// What is left after the cursor.
    var remaining: [UInt8] { position < bytes.count ? Array(bytes[position...]) : [] }
}

extension Array where Element == UInt8 {
    /// Consecutive slices of `n` bytes, the last possibly shorter, as `Data`.
    func chunks(of n: Int) -> [Foundation.Data] {
        stride(from: 0, to: count, by: n).map { Foundation.Data(self[$0..<Swift.min($0 + n, count)]) }
    }
}

import Foundation
