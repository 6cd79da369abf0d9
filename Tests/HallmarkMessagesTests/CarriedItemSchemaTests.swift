import Foundation
import HallmarkCore
import HallmarkMessages
import Testing

/// A batch carrier's items are held to their own schema but for the members the carrier's
/// schema already checked in each of them (`MessageSchemas.carriedItemSchema`). That is sound
/// only while every carrier checks those members by the very rules of its item's schema.
@Suite(.timeLimit(.minutes(2)))
struct CarriedItemSchemaTests {
    /// `value` without its `description`s, at any depth: they document, they do not check.
    static func rules(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            .object(members.filter { $0.key != "description" }.mapValues(rules))
        case .array(let elements): .array(elements.map(rules))
        default: value
        }
    }

    @Test func everyCarrierChecksWhatItsItemsTrustByTheItemsOwnRules() throws {
        let documents = try MessageRegistryTests.documents()
        var carriers = 0
        for (name, document) in documents.sorted(by: { $0.key < $1.key }) {
            guard let items = document.object?["properties"]?.object?["items"]?.object?["items"]?.object else { continue }
            carriers += 1
            let properties = try #require(items["properties"]?.object, "\(name)")
            // One item schema (`const`) or several (`enum`, as the authority's questions are).
            let named = properties["schema"]?.object
            let itemNames = try #require(
                named?["const"]?.string.map { [$0] } ?? named?["enum"]?.array?.compactMap(\.string), "\(name)")
            let required = Set(items["required"]?.array?.compactMap(\.string) ?? [])
            #expect(MessageSchemas.carrierChecked.isSubset(of: required), "\(name) must require them in each item")
            for itemName in itemNames {
                let item = try #require(documents[itemName]?.object?["properties"]?.object, "\(name): \(itemName)")
                for member in MessageSchemas.carrierChecked.sorted() where member != "schema" {
                    let carried = try #require(properties[member], "\(name) does not check \(member)")
                    let own = try #require(item[member], "\(itemName) does not describe \(member)")
                    #expect(Self.rules(carried) == Self.rules(own), "\(name) checks \(member) unlike \(itemName)")
                }
                // The carrier allows exactly the item's own schema name among its others.
                #expect(item["schema"]?.object?["const"]?.string == itemName, "\(itemName)")
            }
        }
        #expect(carriers >= 2, "the token request and result carriers at least")
    }

    @Test func aCarriedItemIsHeldToEverythingElse() throws {
        let plain = try #require(MessageSchemas.schema(TokenRequest.schemaName))
        let carried = try #require(MessageSchemas.carriedItemSchema(TokenRequest.schemaName))
        let token = Data((0..<92).map { UInt8($0 &* 7 & 0xFF) }).base64EncodedString()
        func item(id: String? = "0d7c3a1e-2b4f-4c8e-9a6d-1f2e3d4c5b6a", extra: String = "") throws -> JSONValue {
            let idMember = id.map { #""id":"\#($0)","# } ?? ""
            let text =
                #"{"schema":"hallmark.token.request.v1",\#(idMember)"produced_at":"2026-12-03T15:40:00.123Z","encrypted_nuc_token":"\#(token)","table_references":[1,2,3],"key_indices":[4,5,6]\#(extra)}"#
            return try JSONReader.parse(Array(text.utf8))
        }
        let valid = try item()
        #expect(plain.validate(valid) == nil && carried.validate(valid) == nil)
        // What the carrier checked is trusted: its id is not checked twice.
        #expect(plain.validate(try item(id: "not-a-uuid")) != nil)
        #expect(carried.validate(try item(id: "not-a-uuid")) == nil)
        // Everything else still is: a missing required member, an extra one, a bad field.
        #expect(carried.validate(try item(id: nil))?.reason == "lacks required member id")
        #expect(carried.validate(try item(extra: #","image_hash":"00""#)) != nil)
        #expect(carried.validate(try item(extra: #","camera_token":{}"#)) != nil)
        let badIndex = try JSONReader.parse(
            Array(
                #"{"schema":"hallmark.token.request.v1","id":"0d7c3a1e-2b4f-4c8e-9a6d-1f2e3d4c5b6a","produced_at":"2026-12-03T15:40:00.123Z","encrypted_nuc_token":"\#(token)","table_references":[1,2,3],"key_indices":[4,5,1000]}"#
                    .utf8))
        #expect(carried.validate(badIndex)?.path == "$.key_indices[2]")
    }
}
