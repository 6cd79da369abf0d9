import HallmarkCore

/// The compiled JSON Schema of every message type, from `proto-json/` (embedded at build time
/// by the SchemaEmbedder plugin). The runtime checks every input against its schema here.
///
/// A message schema names the shared definitions of `proto-json/common/` (the envelope's and
/// other shared fields') by `$ref`.
public enum MessageSchemas {
    /// The shared documents of `proto-json/common/`, parsed.
    static let common: [JSONValue] = ProtoJSONDocuments.all.filter { $0.key.hasPrefix(commonFolder) }
        .sorted { $0.key < $1.key }.map { parse($0.key, $0.value) }

    static let commonFolder = "common/"

    /// Every schema, by name; compiled once, on first use.
    public static let all: [String: JSONSchema] = {
        // Each shared document once, so its definitions are checked, unused ones too.
        for (name, text) in sharedDocuments {
            do { _ = try JSONSchema(parse(name, text), referenced: common) } catch {
                preconditionFailure("proto-json/\(name).json: \(error)")
            }
        }
        var out: [String: JSONSchema] = [:]
        for (name, text) in documents {
            // The documents are checked by MessageSchemaTests; one that does not compile is a
            // build defect, not an input error.
            do { out[name] = try JSONSchema(parse(name, text), referenced: common) } catch {
                preconditionFailure("proto-json/\(name).json: \(error)")
            }
        }
        return out
    }()

    /// The schema named `name`, e.g. `hallmark.sign.request.v1`.
    public static func schema(_ name: String) -> JSONSchema? { all[name] }

    /// The schema named `name` for an item of a batch carrier that passed its own schema,
    /// which held the item's `schema`, `id` and `produced_at` to the envelope's rules
    /// (``JSONSchema/trusting(_:)``; `CarriedItemSchemaTests` holds every carrier to that).
    public static func carriedItemSchema(_ name: String) -> JSONSchema? { carriedItems[name] }

    /// The schema named `name` for a message whose envelope this process writes itself, from
    /// an ``EnvelopeHeader`` (`schema` that very name, `id` a ``MessageID``, `produced_at` a
    /// ``Timestamp``: none of them can break the envelope's rules): the same schema as
    /// ``carriedItemSchema(_:)``, which takes those three members as checked. The edge holds
    /// each bundle it writes to it.
    public static func ownEnvelopeSchema(_ name: String) -> JSONSchema? { carriedItems[name] }

    /// The members every carrier's schema checks in each of its items.
    public static let carrierChecked: Set<String> = ["schema", "id", "produced_at"]

    static let carriedItems: [String: JSONSchema] = all.mapValues { $0.trusting(carrierChecked) }

    /// Every message schema's `$id` (its URI), by name.
    public static let ids: [String: String] = documents.reduce(into: [:]) { ids, document in
        ids[document.key] = parse(document.key, document.value).object?["$id"]?.string
    }

    /// The embedded text of every message schema document, by name (without the shared ones).
    public static var documents: [String: String] { ProtoJSONDocuments.all.filter { !$0.key.hasPrefix(commonFolder) } }

    /// The embedded text of every shared document, by path without `.json` (`common/envelope`).
    public static var sharedDocuments: [String: String] { ProtoJSONDocuments.all.filter { $0.key.hasPrefix(commonFolder) } }

    /// The schema named `name` as one self-contained document: the shared definitions it
    /// names copied into its `$defs` (``JSONSchema/bundle(_:referenced:)``).
    public static func bundled(_ name: String) -> JSONValue? {
        guard let text = documents[name] else { return nil }
        do { return try JSONSchema.bundle(parse(name, text), referenced: common) } catch {
            preconditionFailure("proto-json/\(name).json: \(error)")
        }
    }

    static func parse(_ name: String, _ text: String) -> JSONValue {
        do { return try JSONReader.parse(Array(text.utf8)) } catch { preconditionFailure("proto-json/\(name).json: \(error)") }
    }
}
