import Foundation
import zlib

/// Builds zip archives byte by byte, honest ones and the ones no honest writer makes: every
/// header field can be set on its own, in the local header and the central record apart.
struct ZipForge {
    struct Entry {
        var name: String
        /// The uncompressed bytes (used for the CRC and, unless `data` is set, the data).
        var contents = Data()
        /// 0 stored, 8 deflate (anything else is written as given).
        var method: UInt16 = 8
        /// The bytes written as the entry's data; by default `contents`, deflated or stored.
        var data: Data?
        var flags: UInt16 = 0x0800
        /// Overrides of what the central record declares (by default the truth).
        var crc: UInt32?
        var declaredSize: UInt64?
        var compressedSize: UInt64?
        /// Overrides for the local header only.
        var localName: String?
        var localMethod: UInt16?
        var localFlags: UInt16?
        var localDeclaredSize: UInt64?
        var localCRC: UInt32?
        /// Sizes as 0xFFFFFFFF with a ZIP64 extra field (both headers).
        var zip64 = false
        /// Bit 3: zero sizes in the local header and a data descriptor after the data.
        var descriptor = false
        var descriptorSignature = true
        /// Unix mode in the high 16 bits (regular file, 0644).
        var externalAttributes: UInt32 = 0o100644 << 16
        var versionMadeBy: UInt16 = 0x031E
        /// Where the central record says the local header is (by default where it is).
        var offsetOverride: UInt32?

        init(_ name: String, _ contents: Data = Data(), method: UInt16 = 8) {
            self.name = name
            self.contents = contents
            self.method = method
        }
    }

    var entries: [Entry]
    var comment = Data()
    /// Bytes written between entries' data and the central directory.
    var gap = Data()
    var countOverride: UInt16?

    init(_ entries: [Entry]) { self.entries = entries }

    func build() -> Data {
        var out = Data()
        var central = Data()
        for entry in entries {
            let offset = UInt32(out.count)
            let data = entry.data ?? (entry.method == 8 ? Deflate.raw(entry.contents) : entry.contents)
            let crc = entry.crc ?? Deflate.crc(entry.contents)
            let declared = entry.declaredSize ?? UInt64(entry.contents.count)
            let compressed = entry.compressedSize ?? UInt64(data.count)
            let localDeclared = entry.localDeclaredSize ?? declared
            let localCRC = entry.localCRC ?? crc
            let flags = entry.flags | (entry.descriptor ? 0x0008 : 0)
            // Local header.
            let localName = Data((entry.localName ?? entry.name).utf8)
            var localExtra = Data()
            if entry.zip64 {
                localExtra.le(UInt16(1), UInt16(16))
                localExtra.le64(entry.descriptor ? 0 : localDeclared)
                localExtra.le64(entry.descriptor ? 0 : compressed)
            }
            out.le(
                UInt32(0x0403_4B50), UInt16(45), entry.localFlags ?? flags, entry.localMethod ?? entry.method,
                UInt16(0), UInt16(0x21))
            if entry.descriptor {
                out.le(UInt32(0), UInt32(entry.zip64 ? 0xFFFF_FFFF : 0), UInt32(entry.zip64 ? 0xFFFF_FFFF : 0))
            } else {
                out.le(
                    localCRC, entry.zip64 ? 0xFFFF_FFFF : UInt32(truncatingIfNeeded: compressed),
                    entry.zip64 ? 0xFFFF_FFFF : UInt32(truncatingIfNeeded: localDeclared))
            }
            out.le(UInt16(localName.count), UInt16(localExtra.count))
            out += localName + localExtra + data
            if entry.descriptor {
                if entry.descriptorSignature { out.le(UInt32(0x0807_4B50)) }
                out.le(crc)
                if entry.zip64 {
                    out.le64(compressed); out.le64(declared)
                } else {
                    out.le(UInt32(truncatingIfNeeded: compressed), UInt32(truncatingIfNeeded: declared))
                }
            }
            // Central record.
            let name = Data(entry.name.utf8)
            var extra = Data()
            if entry.zip64 {
                extra.le(UInt16(1), UInt16(24))
                extra.le64(declared)
                extra.le64(compressed)
                extra.le64(UInt64(entry.offsetOverride ?? offset))
            }
            central.le(
                UInt32(0x0201_4B50), entry.versionMadeBy, UInt16(45), flags, entry.method, UInt16(0), UInt16(0x21),
                crc)
            central.le(
                entry.zip64 ? 0xFFFF_FFFF : UInt32(truncatingIfNeeded: compressed),
                entry.zip64 ? 0xFFFF_FFFF : UInt32(truncatingIfNeeded: declared))
            central.le(UInt16(name.count), UInt16(extra.count), UInt16(0), UInt16(0), UInt16(0))
            central.le(entry.externalAttributes, entry.zip64 ? 0xFFFF_FFFF : (entry.offsetOverride ?? offset))
            central += name + extra
        }
        out += gap
        let directoryOffset = UInt32(out.count)
        out += central
        let count = countOverride ?? UInt16(entries.count)
        out.le(UInt32(0x0605_4B50), UInt16(0), UInt16(0), count, count)
        out.le(UInt32(central.count), directoryOffset, UInt16(comment.count))
        return out + comment
    }
}

/// zlib's raw deflate and CRC-32, and deflate bombs made cheaply.
enum Deflate {
    static func crc(_ data: Data) -> UInt32 {
        data.withUnsafeBytes { UInt32(zlib.crc32(0, $0.baseAddress?.assumingMemoryBound(to: Bytef.self), UInt32($0.count))) }
    }

    /// Raw deflate of `data` (`flush` Z_FINISH ends the stream, Z_FULL_FLUSH leaves it open
    /// and byte-aligned).
    static func raw(_ data: Data, flush: Int32 = Z_FINISH, level: Int32 = 9) -> Data {
        var stream = z_stream()
        precondition(
            deflateInit2_(
                &stream, level, Z_DEFLATED, -MAX_WBITS, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        var out = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = UInt32(inputBuffer.count)
            repeat {
                buffer.withUnsafeMutableBufferPointer { b in
                    stream.next_out = b.baseAddress
                    stream.avail_out = UInt32(b.count)
                    _ = deflate(&stream, flush)
                    out.append(b.baseAddress!, count: b.count - Int(stream.avail_out))
                }
            } while stream.avail_out == 0
        }
        return out
    }

    /// A deflate stream of `mebibytes` MiB of zeros, ~1 KB per MiB: one flushed MiB repeated,
    /// then an empty final block.
    static func zeros(mebibytes: Int) -> Data {
        let block = raw(Data(count: 1 << 20), flush: Z_FULL_FLUSH)
        var out = Data(capacity: block.count * mebibytes + 8)
        for _ in 0..<mebibytes { out += block }
        return out + raw(Data())
    }
}

extension Data {
    mutating func le<each T: FixedWidthInteger>(_ values: repeat each T) {
        for value in repeat each values {
            Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
        }
    }

    mutating func le64(_ value: UInt64) { le(value) }
}
