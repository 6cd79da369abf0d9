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

    /// The shared documents of proto-json/common/, by path without `.json`.
    static func sharedDocuments() throws -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for (name, text) in try JSONSchemaValidator.sharedDocumentTexts() { out[name] = try JSONReader.parse(Array(text.utf8)) }
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
        // The build plugin embeds exactly the files: the same names and the same text.
        var files: [String: String] = [:]
        for name in try JSONSchemaValidator.allSchemaNames() {
            files[name] = try String(contentsOf: Self.folder.appendingPathComponent("\(name).json"), encoding: .utf8)
        }
        let shared = Dictionary(uniqueKeysWithValues: try JSONSchemaValidator.sharedDocumentTexts())
        #expect(shared.keys.sorted() == ["common/envelope", "common/fields"])
        // The embedder keeps the text but the file's final newline.
        for (embedded, expected) in [(MessageSchemas.documents, files), (MessageSchemas.sharedDocuments, shared)] {
            #expect(Set(embedded.keys) == Set(expected.keys))
            for (name, text) in expected {
                #expect(embedded[name] == String(text.dropLast(text.hasSuffix("\n") ? 1 : 0)), "\(name) differs")
            }
        }
    }

    @Test func everySchemaCompilesIsNamedAfterItsTitleAndPinsItsName() throws {
        let shared = try Self.sharedDocuments()
        for (name, document) in try Self.documents() {
            _ = try JSONSchema(document, referenced: Array(shared.values))
            #expect(document["title"]?.string == name)
            #expect(document["$id"]?.string == "https://hallmark.local/proto-json/\(name).json")
            #expect(document["properties"]?["schema"] == .object(["const": .string(name)]), "\(name)")
            #expect(document["additionalProperties"] == .bool(false), "\(name)")
            for field in ["schema", "id", "produced_at"] {
                #expect(document["required"]?.array?.contains(.string(field)) == true, "\(name) requires \(field)")
            }
            // The envelope fields are the shared envelope document's, by reference.
            for (field, def) in [
                ("id", "uuid"), ("produced_at", "timestamp"), ("correlation_id", "correlation_id"),
                ("reply_to", "reply_to"),
            ] {
                #expect(
                    document["properties"]?[field]?["$ref"] == .string("common/envelope.json#/$defs/\(def)"),
                    "\(name).\(field)")
            }
        }
        for (path, document) in shared {
            _ = try JSONSchema(document, referenced: Array(shared.values))  // its own definitions, unused ones too
            #expect(document["$id"]?.string == "https://hallmark.local/proto-json/\(path).json")
            #expect(document["properties"] == nil && document["type"] == nil, "\(path) is definitions only")
        }
    }

    /// Each rule is defined once: a definition two message schemas need lives in
    /// proto-json/common/, and no schema redefines a shared one.
    @Test func everyDefinitionIsDefinedOnce() throws {
        var owner: [String: String] = [:]
        for (path, document) in try Self.sharedDocuments().sorted(by: { $0.key < $1.key }) {
            for def in document["$defs"]?.object?.keys ?? [:].keys {
                #expect(owner[def] == nil, "$defs/\(def) in \(path) and \(owner[def] ?? "")")
                owner[def] = path
            }
        }
        #expect(owner["uuid"] == "common/envelope" && owner["headers"] == "common/fields")
        for (name, document) in try Self.documents().sorted(by: { $0.key < $1.key }) {
            for def in document["$defs"]?.object?.keys ?? [:].keys {
                #expect(owner[def] == nil, "$defs/\(def) in \(name) and \(owner[def] ?? "")")
                owner[def] = name
            }
        }
    }

    /// The bundled form (shared definitions copied in) validates like the original.
    @Test func aBundledSchemaIsSelfContainedAndValidatesAlike() throws {
        for example in try MessageExamples.all() {
            let bundled = try #require(MessageSchemas.bundled(example.schema))
            #expect(
                bundled["$defs"]?.object?.values.contains { "\($0)".contains("common/") } == false,
                "\(example.schema) still refers out")
            let alone = try JSONSchema(bundled), original = try #require(MessageSchemas.schema(example.schema))
            let json = try example.json()
            #expect(alone.validate(json) == nil && original.validate(json) == nil)
            for c in SchemaViolations.derive(schema: bundled, example: json).prefix(40) {
                #expect((alone.validate(c.document) == nil) == (original.validate(c.document) == nil), "\(c.rule)")
            }
        }
    }

    @Test func everyValueIsBounded() throws {
        var all: [String: JSONValue] = try Self.sharedDocuments()
        for name in try JSONSchemaValidator.allSchemaNames() { all[name] = try #require(MessageSchemas.bundled(name)) }
        #expect(all.count == MessageTypes.all.count + 2)
        for (name, document) in all {
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
