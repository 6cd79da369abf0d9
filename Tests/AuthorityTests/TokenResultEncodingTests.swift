@testable import AuthorityCore
import HallmarkCore
import HallmarkMessages
import Testing

/// The verdict's hand-written bytes are exactly what JSONEncoder writes.
@Suite(.timeLimit(.minutes(2)))
struct TokenResultEncodingTests {
    @Test(arguments: [nil] + ValidationReason.allCases.map(Optional.some))
    func jsonBytesEqualJSONCoding(_ reason: ValidationReason?) throws {
        let result = TokenResult(
            id: MessageID.random(), producedAt: Timestamp.now(), requestId: MessageID.random(),
            reason: reason)
        #expect(result.jsonBytes == (try JSONCoding.encode(result)))
    }

    @Test func noAllowedRequestFieldMentionsAnImage() {
        #expect(!TokenRequestParser.allowed.contains { $0.lowercased().contains("image") })
    }
}
