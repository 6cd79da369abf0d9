import Foundation
import HallmarkCrypto
import HallmarkSmileID
import HallmarkZip
import HallmarkTestSupport
import Testing
import ZIPFoundation

/// The strict zip reader on honest archives (from ZIPFoundation, zlib and streaming
/// writers) and on bombs and lying headers: every hostile archive gets a `.zip` refusal,
/// fast, and inflation stops at the first byte past a limit.
@Suite("Zip reader", .timeLimit(.minutes(3)))
struct ZipReaderTests {
    @Test func vectorDFromZIPFoundationReads() throws {
        let info = #"{"mac":"\#(Fixtures.vectorDMAC)","timestamp":"\#(Fixtures.vectorTimestamp)"}"#
        let upload = try #require(try ZipUpload.read(try Fixtures.vectorDZip(infoJSON: info), limits: ZipCheck.limits))
        #expect(String(decoding: upload.signingData, as: UTF8.self) == #"{"a":1}TElW/9j/4EpQRUdEQVRB"#)
        #expect(upload.fileNames == ["info.json", "si_liveness_1.jpg", "si_selfie_1.jpg"])
        #expect(upload.securityInfo == Data(info.utf8))
        // Stored rather than deflated, by ZIPFoundation too.
        let archive = try Archive(data: Data(), accessMode: .create)
        for (name, contents) in [("si_selfie_1.jpg", Data("S".utf8)), ("security_info.json", Data(info.utf8))] {
            try archive.addEntry(
                with: name, type: .file, uncompressedSize: Int64(contents.count),
                compressionMethod: .none
            ) { position, size in
                contents.subdata(in: Int(position)..<(Int(position) + size))
            }
        }
        let stored = try #require(try ZipUpload.read(archive.data!, limits: ZipCheck.limits))
        #expect(stored.signingData == Data("Uw==".utf8))
    }

    /// Random file sets, stored or deflated, with descriptors, ZIP64 fields and folders: the
    /// streamed signing data equals the reference `SmileIDFileSignature.signingData` (64 KiB
    /// chunks are no multiple of 3, so base64 carries cross chunk edges).
    @Test func streamedSigningDataMatchesTheReference() throws {
        var rng = SplitMix64(seed: 7)
        let names = [
            "info.json", "si_selfie_1.jpg", "si_liveness_2.jpg", "si_document_front.jpg", "notes.txt",
            "si_document_back.png", "a.bin",
        ]
        for round in 0..<24 {
            var entries: [ZipForge.Entry] = []
            var files: [SmileIDFileSignature.File] = []
            for name in names.shuffled(using: &rng).prefix(Int.random(in: 1...6, using: &rng)) {
                let size = [0, 1, 2, 3, 65_535, 65_536, 65_537, Int.random(in: 0...300_000, using: &rng)]
                    .randomElement(using: &rng)!
                let contents = Data((0..<size).map { _ in UInt8.random(in: 0...3, using: &rng) })
                var entry = ZipForge.Entry(
                    round % 3 == 0 ? "folder/\(name)" : name, contents,
                    method: Bool.random(using: &rng) ? 8 : 0)
                entry.descriptor = Bool.random(using: &rng)
                entry.descriptorSignature = Bool.random(using: &rng)
                entry.zip64 = round % 4 == 1
                entries.append(entry)
                files.append(.init(name: name, contents: contents))
            }
            let upload = try #require(try ZipUpload.read(ZipCheck.upload(entries).build(), limits: ZipCheck.limits))
            #expect(upload.signingData == SmileIDFileSignature.signingData(files: files), "round \(round)")
        }
    }

    @Test func foldersAndFolderEntriesAreAccepted() throws {
        var folder = ZipForge.Entry("upload/", method: 0)
        folder.externalAttributes = 0o040755 << 16
        let body = ZipCheck.upload([folder, ZipForge.Entry("upload/info.json", Data("{}".utf8))]).build()
        let upload = try #require(try ZipUpload.read(body, limits: ZipCheck.limits))
        #expect(upload.fileNames == ["info.json"])
        #expect(upload.signingData == Data("{}".utf8))
    }

    /// A single entry of 1 GiB of zeros (~1 MB compressed): refused before inflating when
    /// it says so, stopped at the first byte past what it declared when it lies, and never
    /// past the cap.
    @Test func deflateBombsStopAtTheFirstByteOverALimit() throws {
        let gib = Deflate.zeros(mebibytes: 1024)
        var honest = ZipForge.Entry("si_selfie.jpg")
        (honest.data, honest.declaredSize, honest.crc) = (gib, 1 << 30, 0)
        #expect(
            ZipCheck.outcome(ZipCheck.upload([honest]).build(), within: .seconds(1))
                == "an entry declares more than the 67108864-byte cap")

        for declared in [1024, (64 << 20) - 4096] {
            var liar = honest
            liar.declaredSize = UInt64(declared)
            let body = ZipCheck.upload([liar]).build()
            #expect(ZipCheck.outcome(body) == "an entry inflates past its declared size")
            let (bytes, refusal) = try ZipCheck.delivered(body)
            #expect(bytes == declared)
            #expect(refusal == "an entry inflates past its declared size")
        }
        // Entries that together declare more than the cap are refused before any inflating.
        var parts: [ZipForge.Entry] = []
        for i in 0..<3 {
            var part = honest
            (part.name, part.declaredSize) = ("part\(i).bin", 30 << 20)
            parts.append(part)
        }
        #expect(
            ZipCheck.outcome(ZipCheck.upload(parts).build(), within: .seconds(1))
                == "the entries declare more than the 67108864-byte cap")
        // Under a lower cap the same lie stops at the cap.
        var small = honest
        small.declaredSize = 8 << 20
        #expect(
            ZipCheck.outcome(ZipCheck.upload([small]).build(), limits: ZipLimits(maxInflatedBytes: 4 << 20))
                == "an entry declares more than the 4194304-byte cap")
    }

    /// 42.zip-style nesting is just data: an inner bomb archive is signed as bytes, never opened.
    @Test func aZipInsideAZipIsData() throws {
        var bomb = ZipForge.Entry("zeros.bin")
        (bomb.data, bomb.declaredSize, bomb.crc) = (Deflate.zeros(mebibytes: 1024), 1 << 30, 0)
        let inner = ZipForge([bomb]).build()
        let body = ZipCheck.upload([ZipForge.Entry("inner.zip", inner)]).build()
        let upload = try #require(try ZipUpload.read(body, limits: ZipCheck.limits))
        #expect(upload.signingData == inner)
    }

    @Test func lyingHeadersAreRefused() throws {
        let contents = Data(repeating: 0x41, count: 10_000)
        func variant(_ change: (inout ZipForge.Entry) -> Void) -> String {
            var entry = ZipForge.Entry("info.json", contents)
            change(&entry)
            return ZipCheck.outcome(ZipCheck.upload([entry]).build())
        }
        #expect(variant { $0.declaredSize = 20_000 } == "an entry inflates to less than its declared size")
        #expect(variant { $0.declaredSize = 5_000 } == "an entry inflates past its declared size")
        #expect(variant { $0.crc = 1 } == "an entry fails its CRC-32")
        let disagree = "a local header disagrees with the central directory (sizes or CRC)"
        #expect(variant { $0.localDeclaredSize = 1_000 } == disagree)
        #expect(variant { $0.localCRC = 7 } == disagree)
        #expect(variant { $0.localMethod = 0 } == "a local header disagrees with the central directory (flags, method or name)")
        #expect(variant { $0.localFlags = 0 } == "a local header disagrees with the central directory (flags, method or name)")
        #expect(
            variant { $0.localName = "other.json" }
                == "a local header disagrees with the central directory (flags, method or name)")
        #expect(
            variant {
                $0.method = 0; $0.declaredSize = 9_000
            } == "a stored entry's sizes disagree")
        // A compressed size that cuts the stream short, or leaves bytes after it.
        let deflated = Deflate.raw(contents)
        #expect(variant { $0.data = deflated.prefix(deflated.count - 4) } == "an entry's deflate stream is truncated")
        #expect(variant { $0.data = deflated + Data([1, 2, 3]) } == "an entry has bytes after its deflate stream")
        #expect(variant { $0.data = Data(repeating: 0xFF, count: 64) } == "an entry's deflate stream is corrupt")
        // A data descriptor that disagrees with the central record.
        #expect(
            variant {
                $0.descriptor = true; $0.crc = 9
            } == "an entry fails its CRC-32")  // descriptor agrees, data not
        var lyingDescriptor = ZipForge.Entry("info.json", contents)
        lyingDescriptor.descriptor = true
        var body = ZipCheck.upload([lyingDescriptor]).build()
        let at = try #require(body.firstRange(of: Data([0x50, 0x4B, 0x07, 0x08])))
        body[at.upperBound + 4] ^= 0xFF  // its compressed size
        #expect(ZipCheck.outcome(body) == "a data descriptor disagrees with the central directory or is missing")
    }

    @Test func zip64EntriesAreReadAndHugeDeclarationsRefused() throws {
        var honest = ZipForge.Entry("info.json", Data("zip64".utf8))
        honest.zip64 = true
        #expect(ZipCheck.outcome(ZipCheck.upload([honest]).build()) == "read")
        for huge: UInt64 in [1 << 40, UInt64(Int64.max), UInt64.max] {
            var entry = honest
            entry.declaredSize = huge
            #expect(
                ZipCheck.outcome(ZipCheck.upload([entry]).build(), within: .seconds(1))
                    == "an entry declares more than the 67108864-byte cap")
        }
        var offset = honest
        offset.offsetOverride = 0xFFFF_FFF0
        offset.zip64 = false
        #expect(ZipCheck.outcome(ZipCheck.upload([offset]).build()).contains("outside the archive"))
        // A ZIP64 bomb: small declared size in the ZIP64 field, 1 GiB of zeros behind it.
        var bomb = honest
        (bomb.data, bomb.declaredSize, bomb.crc) = (Deflate.zeros(mebibytes: 1024), 4096, 0)
        let (bytes, refusal) = try ZipCheck.delivered(ZipForge([bomb]).build())
        #expect(bytes == 4096 && refusal == "an entry inflates past its declared size")
        // A ZIP64 end of central directory (the count at its marker).
        var archive = ZipCheck.upload([ZipForge.Entry("info.json")])
        archive.countOverride = 0xFFFF
        #expect(ZipCheck.outcome(archive.build()) == "ZIP64 archives are refused (no upload within the limits needs one)")
    }

    @Test func entryCountIsBoundedBeforeParsing() throws {
        let files = (0..<255).map { ZipForge.Entry("f\($0).txt", Data([UInt8($0)]), method: 0) }
        #expect(ZipCheck.outcome(ZipCheck.upload(files).build()) == "read")
        let over = files + [ZipForge.Entry("one-more.txt")]
        #expect(
            ZipCheck.outcome(ZipCheck.upload(over).build(), within: .seconds(1))
                == "the archive has more than 256 entries")
        var claims = ZipCheck.upload([ZipForge.Entry("a.txt")])
        claims.countOverride = 60_000
        #expect(ZipCheck.outcome(claims.build(), within: .seconds(1)) == "the archive has more than 256 entries")
        claims.countOverride = 3
        #expect(ZipCheck.outcome(claims.build()).contains("central directory record"))
    }

    @Test func unsupportedMethodsEncryptionAndLinksAreRefused() throws {
        for method: UInt16 in [1, 9, 12, 14, 93, 99] {
            var entry = ZipForge.Entry("info.json", Data("x".utf8), method: method)
            entry.data = Data("x".utf8)
            #expect(
                ZipCheck.outcome(ZipCheck.upload([entry]).build())
                    == "an entry uses a compression method other than stored or deflate")
        }
        for flag: UInt16 in [0x0001, 0x0041, 0x2000] {
            var entry = ZipForge.Entry("info.json", Data("x".utf8))
            entry.flags |= flag
            #expect(ZipCheck.outcome(ZipCheck.upload([entry]).build()) == "an entry is encrypted")
        }
        var patched = ZipForge.Entry("info.json")
        patched.flags |= 0x0020
        #expect(ZipCheck.outcome(ZipCheck.upload([patched]).build()) == "an entry has unsupported flags")
        var link = ZipForge.Entry("si_selfie.jpg", Data("/etc/passwd".utf8), method: 0)
        link.externalAttributes = 0o120777 << 16
        #expect(
            ZipCheck.outcome(ZipCheck.upload([link]).build())
                == "an entry is neither a regular file nor a folder (a link or device)")
    }
}
