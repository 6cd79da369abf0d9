import Foundation
@testable import HallmarkCrypto

/// Hex literal → bytes (test inputs are known-good).
func hex(_ s: String) -> Data { try! Hex.decode(s.replacingOccurrences(of: " ", with: "")) }

/// Deterministic pseudo-random bytes for property tests (SplitMix64), so failures reproduce.
struct TestRNG: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func bytes(_ n: Int) -> Data { Data((0..<n).map { _ in UInt8.random(in: 0...255, using: &self) }) }
}

/// Returns `data` with one byte flipped.
func flipped(_ data: Data, at index: Int, mask: UInt8 = 0x01) -> Data {
    var d = data
    d[d.startIndex + index] ^= mask
    return d
}

/// The DESIGN.md SIGN-1 vector headers.
let vectorTimestamp = "2025-01-01T00:00:00.000Z"
let vectorHeaders: [String: String] = [
    "Content-Type": "application/json",
    "SmileID-Partner-ID": "002",
    "SmileID-Source-SDK": "iOS",
    "SmileID-Source-SDK-Version": "11.0.0",
    "SmileID-Request-Timestamp": vectorTimestamp,
]

import Testing

/// Expects `body` to throw a `HallmarkCryptoError` with `code`.
func expectCode(_ code: HallmarkCryptoError.Code, sourceLocation: SourceLocation = #_sourceLocation,
                _ body: () throws -> Void) {
    let error = #expect(throws: HallmarkCryptoError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, sourceLocation: sourceLocation)
}
