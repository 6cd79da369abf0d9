import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkTestSupport
import SignerCore
import Testing

/// The signer's four schemas use checked keywords only and refuse what they should.
@Suite(.timeLimit(.minutes(2)))
struct SchemaTests {
    @Test func verifyResultSchemaTiesReasonAndVersionToTheVerdict() throws {
        let validator = try JSONSchemaValidator.load(VerifyResult.schemaName)
        try validator.lint()
        let id = MessageID.random().text
        var accepted: [String: Any] = [
            "schema": VerifyResult.schemaName, "id": id, "produced_at": Timestamp.now().text, "correlation_id": id,
            "request_id": id, "verdict": "accepted", "secret_version": "v1", "method": "POST", "path": "/",
            "headers": ["a": "b"], "body_b64": "",
        ]
        try validator.validate(accepted)
        accepted["reason"] = "replay"
        #expect(throws: JSONSchemaValidator.Failure.self) { try validator.validate(accepted) }
        var rejected = accepted
        rejected["verdict"] = "rejected"
        #expect(throws: JSONSchemaValidator.Failure.self) { try validator.validate(rejected) }  // has secret_version
        rejected["secret_version"] = nil
        try validator.validate(rejected)
        rejected["reason"] = "nope"
        #expect(throws: JSONSchemaValidator.Failure.self) { try validator.validate(rejected) }
    }

    @Test func requestSchemasAcceptTheCodableMessagesAndRefuseBrokenOnes() throws {
        let sign = Message(SignRequest(headers: ["SmileID-Partner-ID": "1"], bodyB64: "e30="))
        let verify = Message(VerifyRequest(method: "POST", path: "/", headers: [:], bodyB64: ""))
        let signJSON = try JSONSerialization.jsonObject(with: Data(JSONCoding.encode(sign)))
        try SchemaCheck.validate(signJSON, against: SignRequest.schemaName)
        try SchemaCheck.validate(
            try JSONSerialization.jsonObject(with: Data(JSONCoding.encode(verify))),
            against: VerifyRequest.schemaName)
        var broken = signJSON as! [String: Any]
        broken["body_b64"] = "***"
        #expect(throws: JSONSchemaValidator.Failure.self) { try SchemaCheck.validate(broken, against: SignRequest.schemaName) }
        broken["body_b64"] = nil
        #expect(throws: JSONSchemaValidator.Failure.self) { try SchemaCheck.validate(broken, against: SignRequest.schemaName) }
    }
}
