import Foundation
@testable import HallmarkCrypto

/// Hex literal → bytes (test inputs are known-good).
func hex(_ s: String) -> Data { try! Hex.decode(s.replacingOccurrences(of: " ", with: "")) }

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
func expectCode(
    _ code: HallmarkCryptoError.Code, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    let error = #expect(throws: HallmarkCryptoError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, sourceLocation: sourceLocation)
}
