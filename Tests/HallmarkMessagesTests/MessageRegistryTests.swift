import Foundation
import HallmarkCore
import HallmarkMessages
import HallmarkTestSupport
import Testing

/// proto-json/, the embedded copy and MessageTypes.all agree, and every schema is as strict
/// as DESIGN.md §2 asks: closed objects, bounded strings, integers and arrays, one definition
/// of each shared rule.
@Suite(.timeLimit(.minutes(2)))
struct MessageRegistryTests {
    static var folder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("proto-json")
    }

    static func documents() throws -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for name in try JSONSchemaValidator.allSchemaNames() {
            let text = try String(contentsOf: folder.appendingPathComponent("\(name).json"), encoding: .utf8)
            out[name] = try JSONReader.parse(Array(text.utf8))
        }
        return out
    }

    @Test func everySchemaHasATypeAndEveryTypeASchema() throws {
        let files = Set(try JSONSchemaValidator.allSchemaNames())
        let types = MessageTypes.all.map { $0.schemaName }
        #expect(Set(types).count == types.count, "a schema named by two types")
        #expect(
            Set(types) == files,
            "types without schema: \(Set(types).subtracting(files)); schemas without type: \(files.subtracting(Set(types)))")
        #expect(Set(MessageSchemas.all.keys) == files)
    }

    @Test func theEmbeddedDocumentsAreTheFilesInProtoJSON() throws {
        // `deploy/local/embed-schemas --check` semantics: the same names and the same text.
        let embedded = MessageSchemas.documents
        let names = try JSONSchemaValidator.allSchemaNames()
        #expect(Set(embedded.keys) == Set(names))
        for name in names {
            let text = try String(contentsOf: Self.folder.appendingPathComponent("\(name).json"), encoding: .utf8)
            #expect(
                embedded[name] == String(text.dropLast(text.hasSuffix("\n") ? 1 : 0)),
                "\(name): run deploy/local/embed-schemas")
        }
    }

    @Test func everySchemaCompilesIsNamedAfterItsTitleAndPinsItsName() throws {
        for (name, document) in try Self.documents() {
            _ = try JSONSchema(document)
            #expect(document["title"]?.string == name)
            #expect(document["$id"]?.string == "https://hallmark.local/proto-json/\(name).json")
            #expect(document["properties"]?["schema"] == .object(["const": .string(name)]), "\(name)")
            #expect(document["additionalProperties"] == .bool(false), "\(name)")
            for field in ["schema", "id", "produced_at"] {
                #expect(document["required"]?.array?.contains(.string(field)) == true, "\(name) requires \(field)")
            }
            for (field, def) in [
                ("id", "uuid"), ("produced_at", "timestamp"), ("correlation_id", "correlation_id"),
                ("reply_to", "reply_to"),
            ] {
                #expect(document["properties"]?[field]?["$ref"] == .string("#/$defs/\(def)"), "\(name).\(field)")
            }
        }
    }

    @Test func sharedDefinitionsAreTheSameInEveryDocument() throws {
        var first: [String: (String, JSONValue)] = [:]
        for (name, document) in try Self.documents().sorted(by: { $0.key < $1.key }) {
            for (def, value) in document["$defs"]?.object ?? [:] {
                if let (other, seen) = first[def] {
                    #expect(seen == value, "$defs/\(def) differs between \(other) and \(name)")
                } else {
                    first[def] = (name, value)
                }
            }
        }
        #expect(first["timestamp"] != nil && first["correlation_id"] != nil && first["headers"] != nil)
    }

    @Test func everyValueIsBounded() throws {
        for (name, document) in try Self.documents() {
            let defs = document["$defs"]?.object ?? [:]
            var problems: [String] = []
            Self.lint(document, at: "#", defs: defs, problems: &problems)
            for (def, value) in defs { Self.lint(value, at: "#/$defs/\(def)", defs: defs, problems: &problems) }
            #expect(problems.isEmpty, "\(name): \(problems)")
        }
    }

    /// A string needs a maximum length (or a bounded pattern, format, const or enum); an integer
    /// both bounds; an array maxItems; an object is closed or a bounded map.
    static func lint(_ schema: JSONValue, at path: String, defs: [String: JSONValue], problems: inout [String]) {
        guard case .object(let s) = schema else { return }
        let types = Set(s["type"]?.array?.compactMap(\.string) ?? s["type"]?.string.map { [$0] } ?? [])
        let bounded = s["const"] != nil || s["enum"] != nil
        if types.contains("string"), !bounded, s["maxLength"] == nil, s["format"] == nil {
            problems.append("\(path): unbounded string")
        }
        if types.contains("integer"), !bounded, s["minimum"] == nil || s["maximum"] == nil {
            problems.append("\(path): unbounded integer")
        }
        if types.contains("array"), s["maxItems"] == nil { problems.append("\(path): array without maxItems") }
        if s["uniqueItems"] == .bool(true), s["maxItems"] == nil { problems.append("\(path): uniqueItems without maxItems") }
        if types.contains("object"), s["additionalProperties"] != .bool(false), s["maxProperties"] == nil {
            problems.append("\(path): open object")
        }
        for (key, value) in s {
            switch key {
            case "properties", "$defs":
                for (k, v) in value.object ?? [:] { lint(v, at: "\(path)/\(key)/\(k)", defs: defs, problems: &problems) }
            case "allOf", "anyOf", "oneOf":
                for (i, v) in (value.array ?? []).enumerated() {
                    lint(v, at: "\(path)/\(key)/\(i)", defs: defs, problems: &problems)
                }
            case "items", "additionalProperties", "propertyNames", "then", "else":
                lint(value, at: "\(path)/\(key)", defs: defs, problems: &problems)
            default: break
            }
        }
    }
}
