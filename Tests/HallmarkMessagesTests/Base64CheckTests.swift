import Foundation
import Testing

@testable import HallmarkCore

/// `contentEncoding: base64`: canonical padded base64 only, one encoding per byte string.
@Suite(.timeLimit(.minutes(1)))
struct Base64CheckTests {
    @Test func acceptsWhatFoundationWritesForEveryLengthAndEveryFinalByte() {
        for length in 0..<8 {
            for last in 0...255 {
                let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 * 37) } + (length > 0 ? [] : []))
                var data = bytes
                if length > 0 { data[data.count - 1] = UInt8(last) }
                #expect(Base64Check.isCanonical(data.base64EncodedString()))
                if length == 0 { break }
            }
        }
    }

    @Test(arguments: [
        "YQ===", "YQ=", "Y", "YQ", "YWJ", "YR==", "YWJ=", "Y===", "====", "=YQ=", "Y=Q=", "YQ==YQ==", "YQ-_", "YQ==\n",
        " YQ==", "YQ== ", "YWJj\u{0}", "YWJj\r\n", "Y\u{E9}Q=", "YW Jj", "ww=w", "AA=A", "YWJjww=-",
    ])
    func refusesNonCanonical(_ text: String) {
        #expect(!Base64Check.isCanonical(text), "\(text.debugDescription)")
    }

    @Test func unusedBitsMustBeZero() {
        // 'Q' (16) leaves the low four bits of "YQ==" zero; every other second character does not.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        for (i, c) in alphabet.enumerated() {
            #expect(Base64Check.isCanonical("Y\(c)==") == (i % 16 == 0), "Y\(c)==")
            #expect(Base64Check.isCanonical("YW\(c)=") == (i % 4 == 0), "YW\(c)=")
        }
    }

    @Test func aMebibyteIsCheckedQuickly() {
        let text = Data(repeating: 0xAB, count: 1 << 20).base64EncodedString()
        let start = ContinuousClock.now
        #expect(Base64Check.isCanonical(text))
        #expect(ContinuousClock.now - start < .milliseconds(100))
    }
}
