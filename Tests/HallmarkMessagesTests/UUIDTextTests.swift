import Foundation
import HallmarkCore
import HallmarkMessages
import Testing

/// `UUID(text:)` accepts exactly the strict `8-4-4-4-12` hex form (the schemas' `uuid`
/// format), and reads it as `UUID(uuidString:)` does; `lowercasedText` is
/// `uuidString.lowercased()`. Foundation's `sscanf` parser is laxer (it takes some short
/// fields and signs), so a test holding the two equal everywhere would be wrong.
@Suite(.timeLimit(.minutes(2)))
struct UUIDTextTests {
    @Test func readsAndWritesWhatFoundationDoes() {
        for _ in 0..<2_000 {
            let uuid = UUID()
            #expect(uuid.lowercasedText == uuid.uuidString.lowercased())
            #expect(UUID(text: uuid.uuidString) == uuid)
            #expect(UUID(text: uuid.lowercasedText) == uuid)
        }
        let mixed = "0aB1c2D3-e4F5-4a6b-8C7d-9e0F1a2B3c4D"
        #expect(UUID(text: mixed) == UUID(uuidString: mixed))
    }

    @Test(arguments: [
        "", "0", "00000000-0000-0000-0000-00000000000", "00000000-0000-0000-0000-0000000000000",
        "00000000-0000-0000-0000_000000000000", "0000000000000-0000-0000-000000000000", "g0000000-0000-0000-0000-000000000000",
        "{00000000-0000-0000-0000-000000000000}", " 00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-00000000000é",
        "000000000000000000000000000000000000", "00000000-0000-0000-0000-00000000000 ", "+0000000-0000-0000-0000-000000000000",
    ])
    func refusesAnythingButTheStrictForm(_ text: String) {
        #expect(UUID(text: text) == nil)
    }

    /// The grammar, spelled out independently.
    static func strict(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 36
            && bytes.indices.allSatisfy { i in
                [8, 13, 18, 23].contains(i) ? bytes[i] == 0x2D : Array("0123456789abcdefABCDEF".utf8).contains(bytes[i])
            }
    }

    @Test func everySingleByteChangeIsJudgedAlike() {
        let base = Array(UUID().uuidString.utf8)
        for position in base.indices {
            for byte in [UInt8(0x2D), 0x30, 0x39, 0x3A, 0x40, 0x41, 0x46, 0x47, 0x60, 0x61, 0x66, 0x67, 0x20, 0x00] {
                var bytes = base
                bytes[position] = byte
                let text = String(decoding: bytes, as: UTF8.self)
                let read = UUID(text: text)
                #expect((read != nil) == Self.strict(text), "position \(position), byte \(byte)")
                if let read { #expect(read == UUID(uuidString: text)) }
            }
        }
    }
}
