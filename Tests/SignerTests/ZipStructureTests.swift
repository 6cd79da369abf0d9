import Foundation
import HallmarkSmileID
import HallmarkTestSupport
import Testing

/// The archive's shape: truncation, layout, names, duplicates and `security_info.json`, and
/// random corruption. Every case is a `.zip` refusal (or a read), never a crash or a hang.
@Suite("Zip structure", .timeLimit(.minutes(3)))
struct ZipStructureTests {
    static let valid = ZipCheck.upload([
        ZipForge.Entry("info.json", Data(#"{"a":1}"#.utf8)),
        ZipForge.Entry("si_selfie_1.jpg", Data(repeating: 7, count: 5000)),
    ]).build()

    @Test func everyTruncationIsRefused() throws {
        #expect(ZipCheck.outcome(Self.valid) == "read")
        for length in 0..<Self.valid.count {
            let outcome = ZipCheck.outcome(Self.valid.prefix(length), within: .seconds(1))
            #expect(outcome != "read" && outcome != "plain", "prefix of \(length) bytes")
        }
        // Cut in the middle with the end record kept: the offsets point past the end.
        let middle = Self.valid.prefix(200) + Self.valid.suffix(22)
        #expect(ZipCheck.outcome(middle) != "read")
    }

    @Test func layoutMustTileTheArchive() throws {
        var gap = ZipCheck.upload([ZipForge.Entry("info.json", Data("x".utf8))])
        gap.gap = Data("hidden".utf8)
        #expect(ZipCheck.outcome(gap.build()) == "entries overlap or leave gaps before the central directory")
        // Two central records pointing at one local header (an overlapping-files bomb).
        var twin = ZipForge.Entry("si_selfie_2.jpg", Data("x".utf8))
        twin.offsetOverride = 0
        twin.localName = "info.json"
        let overlap = ZipCheck.upload([ZipForge.Entry("info.json", Data("x".utf8)), twin]).build()
        #expect(ZipCheck.outcome(overlap) != "read")
        #expect(ZipCheck.outcome(Self.valid + Data("trailing".utf8)) == "no end of central directory record closes the archive")
        var commented = ZipCheck.upload([ZipForge.Entry("info.json")])
        commented.comment = Data("a comment".utf8)
        #expect(ZipCheck.outcome(commented.build()) == "read")
        #expect(
            ZipCheck.outcome(Data("PK\u{3}\u{4}".utf8) + Data(count: 40))
                == "no end of central directory record closes the archive")
    }

    @Test func securityInfoMustBeThereOnceAndSmall() throws {
        #expect(ZipCheck.outcome(ZipForge([ZipForge.Entry("info.json")]).build()) == "plain")
        let twice = ZipCheck.upload([ZipForge.Entry("security_info.json", ZipCheck.info)]).build()
        #expect(ZipCheck.outcome(twice) == "two entries have the same name")
        let twiceInFolders = ZipCheck.upload([ZipForge.Entry("a/security_info.json", ZipCheck.info)]).build()
        #expect(ZipCheck.outcome(twiceInFolders) == "security_info.json appears more than once")
        let big = ZipCheck.upload([], info: Data(repeating: 0x20, count: 5000)).build()
        #expect(ZipCheck.outcome(big) == "security_info.json declares more than 4096 bytes")
    }

    @Test func duplicateNamesAreRefused() throws {
        let same = ZipCheck.upload([ZipForge.Entry("info.json"), ZipForge.Entry("info.json")]).build()
        #expect(ZipCheck.outcome(same) == "two entries have the same name")
        let folders = ZipCheck.upload([ZipForge.Entry("a/si_selfie.jpg"), ZipForge.Entry("b/si_selfie.jpg")]).build()
        #expect(ZipCheck.outcome(folders) == "two files have the same name once folders are dropped")
    }

    @Test func unsafeNamesAreRefused() throws {
        let refusals: [(String, String)] = [
            ("/etc/passwd", "an entry name is an absolute path"),
            ("../info.json", "an entry name has an empty, '.' or '..' component"),
            ("a/./info.json", "an entry name has an empty, '.' or '..' component"),
            ("a//info.json", "an entry name has an empty, '.' or '..' component"),
            ("a\\info.json", "an entry name contains a control character or a backslash"),
            ("info\u{0}.json", "an entry name contains a control character or a backslash"),
            ("info\n.json", "an entry name contains a control character or a backslash"),
            (String(repeating: "n", count: 256), "an entry name is longer than 255 bytes"),
        ]
        for (name, reason) in refusals {
            #expect(ZipCheck.outcome(ZipCheck.upload([ZipForge.Entry(name)]).build()) == reason, "\(name.debugDescription)")
        }
        #expect(ZipCheck.outcome(ZipCheck.upload([ZipForge.Entry(String(repeating: "n", count: 255))]).build()) == "read")
        #expect(ZipCheck.outcome(ZipCheck.upload([ZipForge.Entry("sélfie.jpg")]).build()) == "read")
        // Invalid UTF-8: patch a placeholder byte in both headers.
        var body = ZipCheck.upload([ZipForge.Entry("bad~name.txt")]).build()
        for i in body.indices where body[i] == UInt8(ascii: "~") { body[i] = 0xFF }
        #expect(ZipCheck.outcome(body) == "an entry name is not valid UTF-8")
        var empty = ZipCheck.upload([ZipForge.Entry("x")]).build()
        empty[empty.startIndex + 26] = 0  // local name length 0: the headers disagree, or the name is empty
        #expect(ZipCheck.outcome(empty) != "read")
        var folderWithContent = ZipForge.Entry("folder/", Data("x".utf8))
        folderWithContent.externalAttributes = 0o040755 << 16
        #expect(ZipCheck.outcome(ZipCheck.upload([folderWithContent]).build()) == "a folder entry declares content")
    }

    /// Random corruption of a valid upload: every mutant reads or gets a `.zip` refusal
    /// (``ZipCheck/outcome`` records anything else), each within a second.
    @Test func randomCorruptionIsReadOrRefused() throws {
        var rng = SplitMix64(seed: 42)
        var refused = 0
        for _ in 0..<3000 {
            var body = Self.valid
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let i = body.startIndex + Int.random(in: 0..<body.count, using: &rng)
                body[i] = UInt8.random(in: 0...255, using: &rng)
            }
            if !["read", "plain"].contains(ZipCheck.outcome(body, within: .seconds(1))) { refused += 1 }
        }
        #expect(refused > 2000)
    }
}
