import Foundation
import Testing

@testable import EdgeCore

/// The `Date` header of the answers written on the event loop (``CachedReadHandler``).
@Suite("HTTP dates", .timeLimit(.minutes(1)))
struct HTTPDateTests {
    /// RFC 9110 §5.6.7's example, a leap day, and the epoch.
    @Test func datesAreIMFFixdate() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(1_709_164_800) == "Thu, 29 Feb 2024 00:00:00 GMT")
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.now.hasSuffix(" GMT") && HTTPDate.now.count == 29)
    }
}
