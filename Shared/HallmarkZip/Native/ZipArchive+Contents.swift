import Foundation
import zlib

extension ZipArchive {
    /// Output handed to the consumer at a time (and the inflater's only output buffer).
    static let chunkBytes = 64 << 10

    /// Streams `entry`'s uncompressed bytes to `consume`, in chunks of at most 64 KiB.
    ///
    /// The entry is held to its headers: inflation is given room for one byte more than the
    /// entry declared, so it stops at the first byte past `declaredSize` (a lie) and the
    /// consumer never sees more than the declared size. The deflate stream must end exactly
    /// at the end of the compressed bytes, the output must reach the declared size and match
    /// the CRC-32. Anything else throws ``ZipError`` `.invalid`; nothing loops on bad input
    /// (every zlib call either makes progress or ends the read). Blocking CPU work: call it
    /// from a ``ZipWorkerPool`` thread, not from a task.
    public func contents(of entry: ZipEntry, _ consume: (UnsafeRawBufferPointer) throws -> Void) throws {
        var crc = zlib.crc32(0, nil, 0)
        var produced = 0
        func deliver(_ chunk: UnsafeRawBufferPointer) throws {
            let allowed = entry.declaredSize - produced
            guard chunk.count <= allowed else {
                // Hand over what was declared, then stop: the next byte is the lie.
                if allowed > 0 { try deliver(UnsafeRawBufferPointer(rebasing: chunk[..<allowed])) }
                throw ZipError(.invalid, "an entry inflates past its declared size")
            }
            if let base = chunk.baseAddress, !chunk.isEmpty {
                crc = zlib.crc32(crc, base.assumingMemoryBound(to: Bytef.self), UInt32(chunk.count))
                try consume(chunk)
            }
            produced += chunk.count
        }
        try body.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            let input = UnsafeRawBufferPointer(rebasing: raw[entry.compressedRange])
            switch entry.method {
            case .stored:
                var at = 0
                while at < input.count {
                    let n = min(Self.chunkBytes, input.count - at)
                    try deliver(UnsafeRawBufferPointer(rebasing: input[at..<(at + n)]))
                    at += n
                }
            case .deflated:
                guard !input.isEmpty else {  // some writers store an empty file so; anything else is cut off
                    if entry.declaredSize == 0 { return }
                    throw ZipError(.invalid, "an entry's deflate stream is truncated")
                }
                try Self.inflate(input, allowed: { entry.declaredSize - produced }, deliver)
            }
        }
        guard produced == entry.declaredSize else {
            throw ZipError(.invalid, "an entry inflates to less than its declared size")
        }
        guard crc == UInt(entry.crc32) else { throw ZipError(.invalid, "an entry fails its CRC-32") }
    }

    /// Raw inflate of `input`; each call gets output room for `allowed() + 1` bytes at most.
    static func inflate(
        _ input: UnsafeRawBufferPointer, allowed: () -> Int,
        _ deliver: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ZipError(.unavailable, "the inflater could not start")
        }
        defer { inflateEnd(&stream) }
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkBytes, alignment: 1)
        defer { output.deallocate() }
        // Input is fed in slices a 32-bit counter can hold.
        var fed = 0
        while true {
            if stream.avail_in == 0 && fed < input.count {
                let n = min(input.count - fed, Int(UInt32.max))
                stream.next_in = UnsafeMutablePointer(
                    mutating: input.baseAddress!.advanced(by: fed)
                        .assumingMemoryBound(to: Bytef.self))
                stream.avail_in = UInt32(n)
                fed += n
            }
            let room = min(chunkBytes, allowed() + 1)
            stream.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = UInt32(room)
            let before = stream.avail_in
            let status = zlib.inflate(&stream, Z_NO_FLUSH)
            let got = room - Int(stream.avail_out)
            try deliver(UnsafeRawBufferPointer(start: output.baseAddress, count: got))
            switch status {
            case Z_STREAM_END:
                guard stream.avail_in == 0, fed == input.count else {
                    throw ZipError(.invalid, "an entry has bytes after its deflate stream")
                }
                return
            case Z_OK:
                guard got > 0 || stream.avail_in != before else {
                    throw ZipError(.invalid, "an entry's deflate stream makes no progress")
                }
            case Z_BUF_ERROR where stream.avail_in == 0 && fed == input.count:
                throw ZipError(.invalid, "an entry's deflate stream is truncated")
            default:
                throw ZipError(.invalid, "an entry's deflate stream is corrupt")
            }
        }
    }
}
