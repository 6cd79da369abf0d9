import Foundation

/// A zip archive read strictly from memory, for uploads nobody vouches for.
///
/// Why not ZIPFoundation (0.9.20, used before): its reader takes the compression method from
/// the local header but the sizes from the central directory; inflates until the deflate
/// stream ends rather than at the entry's compressed size (reading on into the next entry);
/// leaves the inflated size and the CRC to the caller; ends the entry list without an error
/// at the first encrypted or unreadable entry; and on Linux loops forever on a deflate
/// stream cut short (an empty read at the end of the data is retried until the stream ends,
/// and zlib is told each read is a full buffer). Each is harmless for files one made oneself
/// and a lever for a hostile upload. This reader is small enough to check line by line and
/// refuses, as a ``ZipError`` with code `.invalid`, anything it cannot read unambiguously:
///
/// - the end record must close the body exactly (a comment is allowed, trailing bytes are
///   not); ZIP64 end records and multi-disk archives are refused (no upload within the
///   limits needs them; ZIP64 *entry* fields are read);
/// - at most `maxEntries` entries, counted from the end record before anything is parsed;
/// - every central record must agree with its local header (flags, method, name, CRC and
///   sizes, or a data descriptor that repeats them), and the entries must tile the body
///   from offset 0 to the central directory with no gap or overlap;
/// - methods stored and deflate only; encrypted entries, links and devices are refused;
/// - names are checked by ``ZipEntry/validatedName(_:maxBytes:)``; a name may not appear twice;
/// - an entry declaring more than the cap, or entries declaring more together, are refused
///   at once. Inflating is counted separately (``contents(of:_:)``).
///
/// All offset arithmetic is overflow-checked; no declared size is used to size a buffer.
public struct ZipArchive: Sendable {
    static let endSignature: UInt32 = 0x0605_4B50
    static let zip64LocatorSignature: UInt32 = 0x0706_4B50

    /// The archive's bytes.
    public let body: Data
    /// The entries in central-directory order.
    public let entries: [ZipEntry]
    public let limits: ZipLimits

    /// Parses `body`'s structure (no inflating). Throws ``ZipError`` `.invalid` naming the
    /// broken rule or limit, never a name or any content.
    public init(_ body: Data, limits: ZipLimits) throws {
        let bytes = ZipBytes(data: body)
        let end = try Self.endRecord(bytes)
        let what = "the end of central directory record"
        let count = try bytes.u16(end + 10, what)
        let directorySize = Int(try bytes.u32(end + 12, what))
        let directoryOffset = Int(try bytes.u32(end + 16, what))
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF
            || (end >= 20 && (try? bytes.u32(end - 20, what)) == Self.zip64LocatorSignature)
        {
            throw ZipError(.invalid, "ZIP64 archives are refused (no upload within the limits needs one)")
        }
        guard try bytes.u16(end + 4, what) == 0, try bytes.u16(end + 6, what) == 0,
            try bytes.u16(end + 8, what) == count
        else {
            throw ZipError(.invalid, "multi-disk archives are refused")
        }
        guard count <= limits.maxEntries else {
            throw ZipError(.invalid, "the archive has more than \(limits.maxEntries) entries")
        }
        guard try ZipBytes.add(directoryOffset, directorySize, what) == end else {
            throw ZipError(.invalid, "the central directory does not end where the end record starts")
        }
        var centrals: [ZipHeaders.Central] = []
        var offset = directoryOffset
        for _ in 0..<count {
            let (central, next) = try ZipHeaders.central(bytes, at: offset, limits: limits)
            centrals.append(central)
            offset = next
        }
        guard offset == end else { throw ZipError(.invalid, "the central directory's size disagrees with its records") }
        let entries = try centrals.map { try ZipHeaders.entry(bytes, $0) }
        try Self.checkLayout(entries, directoryOffset: directoryOffset, limits: limits)
        self.body = body
        self.entries = entries
        self.limits = limits
    }

    /// The offset of the end record: the last signature whose comment ends the body exactly.
    static func endRecord(_ bytes: ZipBytes) throws -> Int {
        guard bytes.count >= 22 else { throw ZipError(.invalid, "the archive is shorter than an end record") }
        let last = bytes.count - 22
        let found: Int? = bytes.data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Int? in
            for at in stride(from: last, through: max(0, last - 0xFFFF), by: -1) {
                guard raw[at] == 0x50, raw[at + 1] == 0x4B, raw[at + 2] == 0x05, raw[at + 3] == 0x06 else { continue }
                let commentLength = Int(raw[at + 20]) | (Int(raw[at + 21]) << 8)
                if commentLength == last - at { return at }
            }
            return nil
        }
        guard let found else { throw ZipError(.invalid, "no end of central directory record closes the archive") }
        return found
    }

    /// Entries must tile the body from 0 to the central directory, names must be unique, and
    /// the declared sizes must fit the cap together.
    static func checkLayout(_ entries: [ZipEntry], directoryOffset: Int, limits: ZipLimits) throws {
        var position = 0
        for entry in entries.sorted(by: { $0.span.lowerBound < $1.span.lowerBound }) {
            guard entry.span.lowerBound == position else {
                throw ZipError(.invalid, "entries overlap or leave gaps between them")
            }
            position = entry.span.upperBound
        }
        guard position == directoryOffset else {
            throw ZipError(.invalid, "entries overlap or leave gaps before the central directory")
        }
        guard Set(entries.map(\.name)).count == entries.count else {
            throw ZipError(.invalid, "two entries have the same name")
        }
        var declared = 0
        for entry in entries {
            declared = try ZipBytes.add(declared, entry.declaredSize, "the declared sizes")
            guard declared <= limits.maxInflatedBytes else {
                throw ZipError(.invalid, "the entries declare more than the \(limits.maxInflatedBytes)-byte cap")
            }
        }
    }
}
