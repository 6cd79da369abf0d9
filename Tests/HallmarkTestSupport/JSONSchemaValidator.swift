import Foundation
import HallmarkCore
import HallmarkMessages

/// The production validator (``HallmarkCore/JSONSchema``) over a schema file of `proto-json/`,
/// read from the repository itself, for tests that check real messages against the contract.
public struct JSONSchemaValidator {
    /// A violation, or a schema that does not compile.
    public struct Failure: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "\(path): \(reason)" }
    }

    let schema: JSONSchema

    /// The repository's `proto-json/` folder.
    static var folder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("proto-json")
    }

    /// Loads `proto-json/<name>.json` from the repository (not the copy embedded in the build),
    /// with the shared documents of `proto-json/common/` it refers to.
    public static func load(_ name: String) throws -> JSONSchemaValidator {
        let text = try String(contentsOf: folder.appendingPathComponent("\(name).json"), encoding: .utf8)
        let shared = try sharedDocumentTexts().map(\.1)
        do {
            return JSONSchemaValidator(schema: try JSONSchema(json: text, referenced: shared))
        } catch {
            throw Failure(path: error.path, reason: error.reason)
        }
    }

    /// The shared documents of `proto-json/common/`, as (path without `.json`, text), sorted.
    public static func sharedDocumentTexts() throws -> [(String, String)] {
        let common = folder.appendingPathComponent("common")
        return try FileManager.default.contentsOfDirectory(atPath: common.path).filter { $0.hasSuffix(".json") }.sorted()
            .map { ("common/" + $0.dropLast(5), try String(contentsOf: common.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// Compiling already refuses every keyword the validator does not check.
    public func lint() throws {}

    /// The names of every schema in proto-json/.
    public static func allSchemaNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    /// Throws the first violation of a value made by `JSONSerialization` (or any JSON-ready value).
    public func validate(_ instance: Any) throws {
        let data = try JSONSerialization.data(withJSONObject: instance, options: [.fragmentsAllowed])
        try validate(bytes: Array(data))
    }

    /// Parses bytes as JSON (strictly) and validates them.
    public func validate(bytes: [UInt8]) throws {
        let value: JSONValue
        do { value = try JSONReader.parse(bytes) } catch { throw Failure(path: "$", reason: error.description) }
        if let violation = schema.validate(value) { throw Failure(path: violation.path, reason: violation.reason) }
    }
}
