import HallmarkCore

/// The compiled JSON Schema of every message type, from `proto-json/` (embedded at build time
/// by `deploy/local/embed-schemas`). The runtime checks every input against its schema here.
public enum MessageSchemas {
    /// Every schema, by name; compiled once, on first use.
    public static let all: [String: JSONSchema] = {
        var out: [String: JSONSchema] = [:]
        for (name, text) in ProtoJSONDocuments.all {
            // The documents are checked by MessageSchemaTests; one that does not compile is a
            // build defect, not an input error.
            do { out[name] = try JSONSchema(json: text) } catch { preconditionFailure("proto-json/\(name).json: \(error)") }
        }
        return out
    }()

    /// The schema named `name`, e.g. `hallmark.sign.request.v1`.
    public static func schema(_ name: String) -> JSONSchema? { all[name] }

    /// The embedded text of every schema document, by name (for the sync test).
    public static var documents: [String: String] { ProtoJSONDocuments.all }
}
