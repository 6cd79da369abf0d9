import Foundation

/// One entry of a ``ZipArchive`` whose headers passed every structural check: its local and
/// central headers agree, its bytes lie inside the archive, and its name is safe.
///
/// `declaredSize` is what the headers claim. It is a promise the reader holds the entry to
/// (``ZipArchive/contents(of:_:)`` stops at the first byte past it), never a measure of
/// what inflating will produce.
public struct ZipEntry: Sendable, Hashable {
    /// The two methods read; any other is refused when the archive is parsed.
    public enum Method: Int, Sendable {
        case stored = 0
        case deflated = 8
    }

    /// The full name as stored (folders included, `/`-separated, valid UTF-8).
    public let name: String
    /// A folder entry (its name ends in `/`); it must declare no content.
    public let isDirectory: Bool
    public let method: Method
    /// The uncompressed size the headers declare.
    public let declaredSize: Int
    /// The CRC-32 the headers declare for the uncompressed bytes.
    public let crc32: UInt32
    /// The compressed bytes, as offsets into the archive.
    public let compressedRange: Range<Int>
    /// Where the local header starts and where the entry (with its data descriptor) ends.
    let span: Range<Int>

    /// The name without folders: what SIGN-FILES signs and sorts by.
    public var fileName: String {
        let trimmed = isDirectory ? String(name.dropLast()) : name
        return trimmed.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? trimmed
    }
}

extension ZipEntry {
    /// Flags an entry may carry: 1–2 (deflate options), 3 (data descriptor), 11 (UTF-8 name).
    /// Bit 0 (encrypted), 6 (strong encryption), 13 (masked headers) and the rest are refused.
    static let allowedFlags = 0x080E
    static let descriptorFlag = 0x0008

    /// Checks a stored name: 1…`maxBytes` bytes of UTF-8 without control characters or `\`,
    /// relative (no leading `/`), with no empty, `.` or `..` component. A trailing `/` marks
    /// a folder.
    static func validatedName(_ bytes: Data, maxBytes: Int) throws -> (name: String, isDirectory: Bool) {
        guard !bytes.isEmpty else { throw ZipError(.invalid, "an entry has an empty name") }
        guard bytes.count <= maxBytes else {
            throw ZipError(.invalid, "an entry name is longer than \(maxBytes) bytes")
        }
        guard let name = String(validating: bytes, as: UTF8.self) else {
            throw ZipError(.invalid, "an entry name is not valid UTF-8")
        }
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") }) else {
            throw ZipError(.invalid, "an entry name contains a control character or a backslash")
        }
        let isDirectory = name.hasSuffix("/")
        let path = isDirectory ? name.dropLast() : Substring(name)
        guard !path.hasPrefix("/") else { throw ZipError(.invalid, "an entry name is an absolute path") }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            throw ZipError(.invalid, "an entry name has an empty, '.' or '..' component")
        }
        return (name, isDirectory)
    }

    /// Whether the external attributes agree with the name: a regular file, or a folder whose
    /// name ends in `/`. Symbolic links, devices and other kinds are refused.
    static func checkKind(versionMadeBy: Int, external: UInt32, isDirectory: Bool) throws {
        let host = versionMadeBy >> 8
        if host == 3 || host == 19 {  // Unix, macOS: the mode is in the high 16 bits
            let kind = (external >> 16) & 0xF000
            guard kind == 0 || kind == (isDirectory ? 0x4000 : 0x8000) else {
                throw ZipError(.invalid, "an entry is neither a regular file nor a folder (a link or device)")
            }
        } else if external & 0x10 != 0, !isDirectory {  // MS-DOS directory attribute on a file name
            throw ZipError(.invalid, "an entry is marked as a folder but its name is a file's")
        }
    }
}
