import Foundation
import Testing

@testable import EdgeCore

/// What lets the receipts stage skip the outcomes a request of its replica already wrote.
@Suite("Recent receipts", .timeLimit(.minutes(1)))
struct RecentReceiptsTests {
    @Test func theOldestAreForgottenFirstAndOnlyTheKnownAreSkipped() {
        let recent = RecentReceipts(capacity: 3)
        let ids = (0..<5).map { _ in UUID() }
        recent.insert(ids[0..<3])
        recent.insert([ids[1]])  // again: no second place
        #expect(ids[0..<3].allSatisfy(recent.contains))
        recent.insert(ids[3..<5])
        #expect(!recent.contains(ids[0]) && !recent.contains(ids[1]))
        #expect(recent.contains(ids[2]) && recent.contains(ids[3]) && recent.contains(ids[4]))
        let unknown = UUID()
        #expect(recent.removingKnown([ids[0], ids[4], unknown], id: { $0 }) == [ids[0], unknown])
    }
}
