import Foundation

/// Bounds-checked little-endian reads over an archive's bytes, with overflow-checked offset
/// arithmetic: every read outside the body, and every sum that would overflow, throws a
/// ``ZipError`` naming only what was being read.
struct ZipBytes {
    let data: Data

    var count: Int { data.count }

    /// The unsigned integer of `width` bytes at `offset`.
    func uint(_ width: Int, at offset: Int, _ what: String) throws -> UInt64 {
        let end = try Self.add(offset, width, what)
        guard offset >= 0, end <= data.count else { throw Self.truncated(what) }
        var value: UInt64 = 0
        let base = data.startIndex + offset
        for i in (0..<width).reversed() { value = value << 8 | UInt64(data[base + i]) }
        return value
    }

    func u16(_ offset: Int, _ what: String) throws -> Int { Int(try uint(2, at: offset, what)) }
    func u32(_ offset: Int, _ what: String) throws -> UInt32 { UInt32(try uint(4, at: offset, what)) }
    func u64(_ offset: Int, _ what: String) throws -> UInt64 { try uint(8, at: offset, what) }

    /// `count` bytes at `offset`.
    func bytes(_ offset: Int, _ count: Int, _ what: String) throws -> Data {
        let end = try Self.add(offset, count, what)
        guard offset >= 0, count >= 0, end <= data.count else { throw Self.truncated(what) }
        return data.subdata(in: (data.startIndex + offset)..<(data.startIndex + end))
    }

    /// A range of the body (offsets from its start); throws unless it lies inside it.
    func range(_ offset: Int, _ count: Int, _ what: String) throws -> Range<Int> {
        let end = try Self.add(offset, count, what)
        guard offset >= 0, count >= 0, end <= data.count else { throw Self.truncated(what) }
        return offset..<end
    }

    static func add(_ a: Int, _ b: Int, _ what: String) throws -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        guard !overflow else { throw ZipError(.invalid, "\(what): an offset or size overflows") }
        return sum
    }

    /// A 64-bit field as an `Int`, refusing values that do not fit.
    static func int(_ value: UInt64, _ what: String) throws -> Int {
        guard let int = Int(exactly: value) else { throw ZipError(.invalid, "\(what): a size or offset is out of range") }
        return int
    }

    static func truncated(_ what: String) -> ZipError {
        ZipError(.invalid, "\(what) lies outside the archive (truncated or a bad offset)")
    }
}
