import AuthorityCore
import Foundation
import HallmarkCLICore
import HallmarkCore
import HallmarkCrypto
import HallmarkKafka
import HallmarkMessages
import HallmarkRuntime
import HallmarkTestSupport
import Testing

/// What an operator signs and what the authority accepts, without a broker: the signed bytes,
/// each refusal on a fixed clock, the keys file and the key file.
@Suite("Admin command signatures", .timeLimit(.minutes(1)))
struct AdminCommandVerifierTests {
    static let now = Date(timeIntervalSince1970: 1_760_000_000)

    static func message(_ bytes: [UInt8]) throws -> StageMessage {
        let (header, fields) = try EnvelopeHeader.read(bytes)
        return StageMessage(
            header: header,
            kafka: KafkaMessage(
                topic: "admin", partition: 0, offset: 0, key: nil,
                value: bytes), fields: fields)
    }

    static func command(at date: Date = now) -> Message<AdminCommand> {
        Message(
            AdminCommand(command: .blacklist, deviceSerial: "CAM-1", reason: "stolen"),
            producedAt: Timestamp(date))
    }

    @Test func theSignatureCoversTheCanonicalJSONWithoutItself() throws {
        let key = try OperatorKeyFile.generate(keyID: "op-1")
        let signed = try key.sign(Self.command())
        let bytes = try JSONCoding.encode(signed)
        try JSONSchemaValidator.load(AdminCommand.schemaName).validate(bytes: bytes)
        // The signed bytes are the message's own bytes without `"signature":"…"`, keys sorted.
        var unsigned = signed
        unsigned.signature = nil
        let fields = try Self.message(bytes).fields
        #expect(OperatorSignature.signedBytes(of: fields) == (try JSONCoding.encode(unsigned)))
        #expect(
            Ed25519.verify(
                signature: try Base64.decode(signed.signature!, length: 64),
                message: OperatorSignature.signedBytes(of: fields), publicKey: try key.publicKey))
        #expect(signed.keyID == "op-1")
    }

    @Test func eachRefusalHasItsReason() throws {
        let key = try OperatorKeyFile.generate(keyID: "op-1")
        let keys = try OperatorKeys.parse("# operators\n" + (try key.publicEntry) + "\n", variable: "test")
        let verifier = AdminCommandVerifier(keys: keys, windowSeconds: 300, now: { Self.now })
        func reason(_ bytes: [UInt8]) throws -> String? {
            do {
                _ = try verifier.verify(try Self.message(bytes))
                return nil
            } catch let refusal as AdminCommandVerifier.Refusal {
                return refusal.reason.rawValue
            }
        }
        #expect(try reason(JSONCoding.encode(key.sign(Self.command()))) == nil)
        #expect(try reason(JSONCoding.encode(key.sign(Self.command(at: Self.now - 299)))) == nil)
        #expect(try reason(JSONCoding.encode(Self.command())) == "unsigned_command")
        var keyOnly = Self.command()
        keyOnly.keyID = "op-1"
        #expect(try reason(JSONCoding.encode(keyOnly)) == "unsigned_command")
        #expect(try reason(JSONCoding.encode(OperatorKeyFile.generate(keyID: "op-2").sign(Self.command()))) == "unknown_key")
        #expect(
            try reason(JSONCoding.encode(OperatorKeyFile.generate(keyID: "op-1").sign(Self.command())))
                == "bad_signature")
        var changed = try key.sign(Self.command())
        changed.reason = "found"
        #expect(try reason(JSONCoding.encode(changed)) == "bad_signature")
        // A member the schema allows, added after signing (a reply_to an attacker would read).
        var object = try JSONSerialization.jsonObject(with: Data(JSONCoding.encode(key.sign(Self.command())))) as! [String: Any]
        object["reply_to"] = "attacker.topic"
        #expect(try reason(Array(JSONSerialization.data(withJSONObject: object))) == "bad_signature")
        #expect(try reason(JSONCoding.encode(key.sign(Self.command(at: Self.now - 301)))) == "stale_command")
        #expect(try reason(JSONCoding.encode(key.sign(Self.command(at: Self.now + 301)))) == "stale_command")
    }

    @Test func keysFilesAreStrictAndNeverEchoAKey() throws {
        let key = try OperatorKeyFile.generate(keyID: "op-1")
        let entry = try key.publicEntry
        #expect(try OperatorKeys.parse(entry + ", other=" + Base64.encode(Data(count: 32)), variable: "v").keys.count == 2)
        for bad in [
            "op-1", "op 1=" + Base64.encode(Data(count: 32)), "-op=" + Base64.encode(Data(count: 32)),
            "op=" + Base64.encode(Data(count: 31)), entry + "\n" + entry,
        ] {
            #expect(throws: ConfigurationError.self) { try OperatorKeys.parse(bad, variable: "v") }
            do { _ = try OperatorKeys.parse(bad, variable: "v") } catch {
                #expect(!error.description.contains(String(entry.split(separator: "=", maxSplits: 1)[1])))
            }
        }
        #expect(try OperatorKeys.fromEnvironment([:]).isEmpty)
        #expect(try OperatorKeys.fromEnvironment(["HALLMARK_AUTHORITY_OPERATOR_KEYS": entry])["op-1"] == key.publicKey)
        #expect(throws: ConfigurationError.self) {
            try OperatorKeys.fromEnvironment(["HALLMARK_AUTHORITY_OPERATOR_KEYS_FILE": "/nonexistent/keys"])
        }
    }

    @Test func theKeyFileRoundTripsAndIsNeverOverwritten() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("op-\(UUID()).key").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let key = try OperatorKeyFile.generate(keyID: "op-1")
        try key.write(to: path)
        let loaded = try OperatorKeyFile.load(path)
        #expect(loaded.keyID == "op-1")
        #expect(try loaded.publicKey == key.publicKey)
        #expect(throws: (any Error).self) { try OperatorKeyFile.generate(keyID: "op-2").write(to: path) }
        #expect(try OperatorKeyFile.load(path).publicKey == key.publicKey)
        #expect(throws: (any Error).self) { try OperatorKeyFile.generate(keyID: "bad id") }
    }
}
