import HallmarkClient
import Testing

/// How the clients' answer watcher (CLI, traffic, benches, these tests) files an answer: by
/// its `correlation_id`, else its `request_id`.
@Suite("Answer watcher", .timeLimit(.minutes(1)))
struct AnswerWatcherTests {
    @Test func anAnswerIsFiledByItsCorrelationIdElseItsRequestId() {
        func id(_ json: String) -> String? { AnswerWatcher.requestId(Array(json.utf8)) }
        #expect(id(#"{"request_id":"r-1","correlation_id":"c-1","status":"PASS"}"#) == "c-1")
        #expect(id(#"{"correlation_id":null,"request_id":"r-2"}"#) == "r-2")
        #expect(id(#"{"correlation_id":7,"request_id":"r-3"}"#) == "r-3")
        #expect(id(#"{"status":"PASS"}"#) == nil)
        #expect(id(#"["c-1"]"#) == nil)
        #expect(id(#"{"correlation_id":"c-1""#) == nil)
        #expect(id("") == nil)
    }
}
