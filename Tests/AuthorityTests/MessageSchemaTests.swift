import HallmarkClient
import AuthorityCore
import Foundation
import HallmarkCLICore
import HallmarkCrypto
import HallmarkCore
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// Requests as the CLI writes them match proto-json/, and the schemas refuse what the
/// authority refuses (an image hash above all). Produced answers are checked end to end.
@Suite(.timeLimit(.minutes(2)))
struct MessageSchemaTests {
    static func file() throws -> ProvisioningFile {
        let masters = try Dictionary(uniqueKeysWithValues: [3, 9, 12].map { ($0, try SecureRandom.bytes(32)) })
        return ProvisioningFile(
            answer: ProvisioningAnswer(deviceSerial: "CAM-1", masterKeys: masters),
            nucHash: try SecureRandom.bytes(32))
    }

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(bytes)) as! [String: Any]
    }

    @Test func tokenRequestsInBothFormatsMatchAndImageHashesDoNot() throws {
        let schema = try JSONSchemaValidator.load("hallmark.token.request.v1")
        let cam = try Self.file()
        let reference = try ProvisioningFile.requestBytes(cam.referenceRequest().token)
        let mobile = try ProvisioningFile.requestBytes(cam.mobileToken())
        try schema.validate(bytes: reference)
        try schema.validate(bytes: mobile)
        var withImage = try Self.object(reference)
        withImage["image_hash"] = String(repeating: "0", count: 64)
        #expect(throws: (any Error).self) { try schema.validate(withImage) }
        var both = try Self.object(reference)
        for (k, v) in try Self.object(mobile) where k != "id" { both[k] = v }
        #expect(throws: (any Error).self) { try schema.validate(both) }
        var badIndex = try Self.object(reference)
        var token = badIndex["camera_token"] as! [String: Any]
        token["key_index"] = 1000
        badIndex["camera_token"] = token
        #expect(throws: (any Error).self) { try schema.validate(badIndex) }
    }

    @Test func provisionRequestAndAdminCommandMatch() throws {
        let keys = try X25519.generate()
        let request = Message(
            ProvisionRequest(
                deviceSerial: "CAM-1", devicePublicKey: Base64.encode(keys.publicKey),
                nucHash: Hex.encode(try SecureRandom.bytes(32)), deviceFamily: "test"))
        try JSONSchemaValidator.load("hallmark.provision.request.v1").validate(bytes: JSONCoding.encode(request))
        let admin = try JSONSchemaValidator.load("hallmark.authority.admin.v1")
        for action in AdminCommand.Action.allCases {
            let command = Message(AdminCommand(command: action, deviceSerial: "CAM-1", tableId: 4, reason: "test"))
            try admin.validate(bytes: JSONCoding.encode(command))
        }
        for name in ["hallmark.token.result.v1", "hallmark.provision.result.v1", "hallmark.security.event.v1"] {
            try JSONSchemaValidator.load(name).lint()
        }
    }
}
