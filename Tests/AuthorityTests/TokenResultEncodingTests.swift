@testable import AuthorityCore
import Foundation
import HallmarkCore
import HallmarkMessages
import Testing

/// The verdict's bytes, an answer as the authority writes it (`JSONCoding`), are exactly what
/// JSONEncoder writes.
@Suite(.timeLimit(.minutes(2)))
struct TokenResultEncodingTests {
    @Test(arguments: [nil] + ValidationReason.allCases.map(Optional.some))
    func verdictBytesEqualJSONEncoder(_ reason: ValidationReason?) throws {
        let request = MessageID.random()
        let result = Message(TokenResult(reason: reason), correlationID: request.text, requestID: request)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(try JSONCoding.encode(result) == Array(try encoder.encode(result)))
    }

    @Test func noAllowedRequestFieldMentionsAnImage() throws {
        let schema = try #require(MessageSchemas.bundled(TokenRequest.schemaName))
        let names = try #require(schema["properties"]?.object).keys
        #expect(names.contains("camera_token"))
        #expect(!names.contains { $0.lowercased().contains("image") })
        #expect(schema["additionalProperties"] == .bool(false))
    }
}
