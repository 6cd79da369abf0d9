import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkTestSupport
import Testing

@testable import HallmarkRuntime

/// The schemas in proto-json/ are well-formed, use only keywords the validator checks, and
/// really reject what they should. Real produced messages are validated in the end-to-end tests.
@Suite(.timeLimit(.minutes(2)))
struct ProtoJSONSchemaTests {
    @Test func everySchemaIsNamedAfterItsTitleAndUsesCheckedKeywordsOnly() throws {
        let names = try JSONSchemaValidator.allSchemaNames()
        #expect(names.contains("hallmark.rejected.v1") && names.contains("hallmark.metrics.v1"))
        for name in names {
            let validator = try JSONSchemaValidator.load(name)
            try validator.lint()
        }
    }

    @Test func rejectedSchemaAcceptsARecordAndRefusesBrokenOnes() throws {
        let schema = try JSONSchemaValidator.load("hallmark.rejected.v1")
        let record = Message(
            RejectedRecord(
                service: "probe", instance: "i", reason: .invalidJSON,
                detail: "the message is not valid UTF-8 JSON", source: .init(topic: "t", partition: 1, offset: 7),
                originalID: nil, original: Array("{not".utf8), limit: 1 << 20))
        let good = try JSONSerialization.jsonObject(with: Data(JSONCoding.encode(record))) as! [String: Any]
        try schema.validate(good)

        var broken: [(String, [String: Any])] = []
        var missing = good; missing["reason"] = nil; broken.append(("missing reason", missing))
        var extra = good; extra["secret"] = "x"; broken.append(("additional property", extra))
        var badID = good; badID["id"] = "not-a-uuid"; broken.append(("bad uuid", badID))
        var badTime = good; badTime["produced_at"] = "yesterday"; broken.append(("bad date-time", badTime))
        var badOffset = good; badOffset["source"] = ["topic": "t", "partition": 0, "offset": -1];
        broken.append(("negative offset", badOffset))
        var badType = good; badType["detail"] = 5; broken.append(("wrong type", badType))
        var badSchema = good; badSchema["schema"] = "hallmark.rejected.v2"; broken.append(("wrong const", badSchema))
        for (what, instance) in broken {
            #expect(throws: JSONSchemaValidator.Failure.self, "\(what)") { try schema.validate(instance) }
        }
    }

    @Test func metricsSchemaAcceptsARealSnapshot() throws {
        let registry = MetricsRegistry()
        registry.makeCounter(label: "c", dimensions: [("service", "s")]).increment(by: 2)
        registry.makeTimer(label: "t", dimensions: []).recordNanoseconds(10)
        registry.makeMeter(label: "g", dimensions: []).set(Int64(1))
        let (c, g, h) = registry.snapshot()
        let snapshot = Message(
            MetricsSnapshot(service: "s", instance: "i", intervalSeconds: 10, counters: c, gauges: g, histograms: h))
        try JSONSchemaValidator.load("hallmark.metrics.v1").validate(bytes: JSONCoding.encode(snapshot))
    }

    @Test func validatorRefusesUnknownKeywords() throws {
        #expect(throws: JSONSchemaError.self) { try JSONSchema(json: #"{"type":"object","dependentRequired":{"a":["b"]}}"#) }
        #expect(throws: JSONSchemaError.self) { try JSONSchema(json: #"{"properties":{"a":{"format":"email"}}}"#) }
        #expect(throws: JSONSchemaError.self) { try JSONSchema(json: #"{"pattern":"(?=lookahead)"}"#) }
    }
}
