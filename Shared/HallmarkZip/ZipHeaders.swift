import Foundation

/// Parsing of one entry's central record, local header and data descriptor, and the checks
/// that they agree. ZIP64 extra fields are read where a 32-bit field says so (`0xFFFFFFFF`);
/// the values they hold are then held to the same limits as any other.
enum ZipHeaders {
    static let centralSignature: UInt32 = 0x0201_4B50
    static let localSignature: UInt32 = 0x0403_4B50
    static let descriptorSignature: UInt32 = 0x0807_4B50
    static let zip64ExtraID = 0x0001
    static let marker32: UInt64 = 0xFFFF_FFFF

    /// An entry as the central directory describes it.
    struct Central {
        var flags: Int
        var method: ZipEntry.Method
        var crc32: UInt32
        var compressedSize: Int
        var declaredSize: Int
        var headerOffset: Int
        var nameBytes: Data
        var name: String
        var isDirectory: Bool
    }

    /// The central record at `offset` and the offset after it.
    static func central(_ bytes: ZipBytes, at offset: Int, limits: ZipLimits) throws -> (Central, next: Int) {
        let what = "a central directory record"
        guard try bytes.u32(offset, what) == centralSignature else {
            throw ZipError(.invalid, "\(what) has no signature")
        }
        let flags = try bytes.u16(offset + 8, what)
        let methodRaw = try bytes.u16(offset + 10, what)
        let nameLength = try bytes.u16(offset + 28, what)
        let extraLength = try bytes.u16(offset + 30, what)
        let commentLength = try bytes.u16(offset + 32, what)
        let nameBytes = try bytes.bytes(offset + 46, nameLength, what)
        let extra = try bytes.bytes(offset + 46 + nameLength, extraLength, what)
        let next = try ZipBytes.add(offset + 46 + nameLength + extraLength, commentLength, what)
        _ = try bytes.range(offset, next - offset, what)

        guard flags & ~ZipEntry.allowedFlags == 0 else {
            throw ZipError(.invalid, flags & 0x2041 != 0 ? "an entry is encrypted" : "an entry has unsupported flags")
        }
        guard let method = ZipEntry.Method(rawValue: methodRaw) else {
            throw ZipError(.invalid, "an entry uses a compression method other than stored or deflate")
        }
        let (name, isDirectory) = try ZipEntry.validatedName(nameBytes, maxBytes: limits.maxNameBytes)
        try ZipEntry.checkKind(
            versionMadeBy: try bytes.u16(offset + 4, what), external: try bytes.u32(offset + 38, what),
            isDirectory: isDirectory)

        // ZIP64: each 32-bit field at its marker is replaced, in this order, from the extra field.
        var zip64 = try zip64Fields(extra)
        func resolve(_ raw: UInt64, _ marker: UInt64) throws -> UInt64 {
            guard raw == marker else { return raw }
            guard !zip64.isEmpty else { throw ZipError(.invalid, "an entry's ZIP64 field is missing") }
            return zip64.removeFirst()
        }
        let declared64 = try resolve(try bytes.uint(4, at: offset + 24, what), marker32)
        let compressed64 = try resolve(try bytes.uint(4, at: offset + 20, what), marker32)
        let headerOffset64 = try resolve(try bytes.uint(4, at: offset + 42, what), marker32)
        let diskRaw = try bytes.uint(2, at: offset + 34, what)
        let disk = diskRaw == 0xFFFF ? zip64.first ?? 1 : diskRaw  // what is left of the ZIP64 field is the disk
        guard disk == 0 else {
            throw ZipError(.invalid, "multi-disk archives are refused")
        }
        // A declared size is refused outright past the cap; within it, it is still only a claim.
        guard declared64 <= UInt64(limits.maxInflatedBytes) else {
            throw ZipError(.invalid, "an entry declares more than the \(limits.maxInflatedBytes)-byte cap")
        }
        let central = Central(
            flags: flags, method: method, crc32: try bytes.u32(offset + 16, what),
            compressedSize: try ZipBytes.int(compressed64, what),
            declaredSize: try ZipBytes.int(declared64, what),
            headerOffset: try ZipBytes.int(headerOffset64, what),
            nameBytes: nameBytes, name: name, isDirectory: isDirectory)
        guard !isDirectory || central.declaredSize == 0 else { throw ZipError(.invalid, "a folder entry declares content") }
        guard method != .stored || central.compressedSize == central.declaredSize else {
            throw ZipError(.invalid, "a stored entry's sizes disagree")
        }
        return (central, next)
    }

    /// The entry after checking its local header (and data descriptor) against `central`.
    static func entry(_ bytes: ZipBytes, _ central: Central) throws -> ZipEntry {
        let what = "a local header"
        let offset = central.headerOffset
        guard try bytes.u32(offset, what) == localSignature else { throw ZipError(.invalid, "\(what) has no signature") }
        let flags = try bytes.u16(offset + 6, what)
        let methodRaw = try bytes.u16(offset + 8, what)
        let nameLength = try bytes.u16(offset + 26, what)
        let extraLength = try bytes.u16(offset + 28, what)
        let nameBytes = try bytes.bytes(offset + 30, nameLength, what)
        let extra = try bytes.bytes(offset + 30 + nameLength, extraLength, what)
        guard flags == central.flags, methodRaw == central.method.rawValue, nameBytes == central.nameBytes else {
            throw ZipError(.invalid, "a local header disagrees with the central directory (flags, method or name)")
        }
        let dataStart = try ZipBytes.add(offset + 30 + nameLength, extraLength, what)
        let data = try bytes.range(dataStart, central.compressedSize, "an entry's data")

        // Local sizes: the real ones, or zeros when a data descriptor follows the data.
        let zip64 = try zip64Fields(extra)
        var declared = try bytes.uint(4, at: offset + 22, what)
        var compressed = try bytes.uint(4, at: offset + 18, what)
        if declared == marker32 || compressed == marker32 {
            guard zip64.count >= 2 else { throw ZipError(.invalid, "a local header's ZIP64 sizes are missing") }
            (declared, compressed) = (zip64[0], zip64[1])
        }
        let crc = try bytes.u32(offset + 14, what)
        let agrees =
            crc == central.crc32 && declared == UInt64(central.declaredSize)
            && compressed == UInt64(central.compressedSize)
        var end = data.upperBound
        if flags & ZipEntry.descriptorFlag != 0 {
            // Streaming writers leave what they do not know yet as 0 (Info-ZIP knows the size).
            let unknownOrAgrees =
                (crc == 0 || crc == central.crc32)
                && (declared == 0 || declared == UInt64(central.declaredSize))
                && (compressed == 0 || compressed == UInt64(central.compressedSize))
            guard unknownOrAgrees else {
                throw ZipError(.invalid, "a local header disagrees with the central directory (sizes or CRC)")
            }
            end = try descriptorEnd(bytes, at: data.upperBound, central, wide: !zip64.isEmpty)
        } else if !agrees {
            throw ZipError(.invalid, "a local header disagrees with the central directory (sizes or CRC)")
        }
        return ZipEntry(
            name: central.name, isDirectory: central.isDirectory, method: central.method,
            declaredSize: central.declaredSize, crc32: central.crc32, compressedRange: data,
            span: offset..<end)
    }

    /// The end of the data descriptor at `offset`, which must repeat the central values. Its
    /// signature is optional and its sizes are 8 bytes each for a ZIP64 entry, 4 otherwise;
    /// the expected form is tried first.
    static func descriptorEnd(_ bytes: ZipBytes, at offset: Int, _ central: Central, wide: Bool) throws -> Int {
        let what = "a data descriptor"
        let signed = (try? bytes.u32(offset, what)) == descriptorSignature
        var forms: [(hasSignature: Bool, isWide: Bool)] = signed ? [(true, wide), (true, !wide)] : []
        forms += [(false, wide), (false, !wide)]
        for (hasSignature, isWide) in forms {
            let base = offset + (hasSignature ? 4 : 0)
            let width = isWide ? 8 : 4
            guard let crc = try? bytes.u32(base, what), let compressed = try? bytes.uint(width, at: base + 4, what),
                let declared = try? bytes.uint(width, at: base + 4 + width, what)
            else { continue }
            if crc == central.crc32, compressed == UInt64(central.compressedSize), declared == UInt64(central.declaredSize) {
                return base + 4 + 2 * width
            }
        }
        throw ZipError(.invalid, "a data descriptor disagrees with the central directory or is missing")
    }

    /// The 64-bit values of a ZIP64 extended-information field (id 1), in order; empty when
    /// there is none. Extra records must not overrun the extra field.
    static func zip64Fields(_ extra: Data) throws -> [UInt64] {
        let bytes = ZipBytes(data: extra)
        var offset = 0
        while offset + 4 <= bytes.count {
            let id = try bytes.u16(offset, "an extra field")
            let length = try bytes.u16(offset + 2, "an extra field")
            let body = try bytes.range(offset + 4, length, "an extra field")
            if id == zip64ExtraID {
                var values: [UInt64] = []
                var at = body.lowerBound
                while at + 8 <= body.upperBound {
                    values.append(try bytes.u64(at, "a ZIP64 field"))
                    at += 8
                }
                if at + 4 == body.upperBound { values.append(UInt64(try bytes.u32(at, "a ZIP64 field"))) }  // disk
                return values
            }
            offset = body.upperBound
        }
        return []
    }
}
