import Foundation
import HallmarkCrypto
import HallmarkTestSupport
import Testing

@Suite(.timeLimit(.minutes(1)))
struct HexTests {
    /// Every byte's two digits, against Foundation's formatting, through each path: `Data`,
    /// an array (contiguous) and a lazy sequence (neither), and back through the decoder.
    @Test func everyByteThroughEveryPath() throws {
        let all = [UInt8](0...255)
        let expected = all.map { String(format: "%02x", $0) }.joined()
        #expect(Hex.encode(Data(all)) == expected)
        #expect(Hex.encode(all) == expected)
        #expect(Hex.encode(all.lazy.map { $0 }) == expected)
        #expect(Hex.encode(Data(all)[1...]) == String(expected.dropFirst(2)))
        #expect(try Hex.decode(expected) == Data(all))
        #expect(Hex.encode(Data()) == "" && Hex.encode([UInt8]()) == "")
    }

    /// Random lengths and contents round-trip, and the text is lowercase hex of twice the length.
    @Test func randomBytesRoundTrip() throws {
        var generator = SplitMix64(seed: 0x4845_5854)
        for _ in 0..<500 {
            let count = Int.random(in: 0...200, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Hex.encode(Data(bytes))
            #expect(text.utf8.count == 2 * count)
            #expect(text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            #expect(try Hex.decode(text, length: count) == Data(bytes))
        }
    }
}
