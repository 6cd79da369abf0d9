import Foundation

/// Writes every JSON Schema document under a folder into one Swift source file, as raw string
/// literals keyed by their path without `.json` (`hallmark.sign.request.v1`, `common/envelope`).
/// The build plugin runs it on `proto-json/`, so a binary validates against exactly the schemas
/// of its checkout without shipping resource files.
///
/// Usage: `SchemaEmbedder <folder> <output.swift>`
@main
struct SchemaEmbedder {
    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 3 else {
            FileHandle.standardError.write(Data("usage: SchemaEmbedder <folder> <output.swift>\n".utf8))
            exit(2)
        }
        let folder = URL(fileURLWithPath: arguments[1], isDirectory: true).standardizedFileURL
        var lines = [
            "// Generated at build time by the SchemaEmbedder plugin from proto-json/. Not committed.",
            "",
            "/// The JSON Schema documents of `proto-json/`, by path without `.json`.",
            "enum ProtoJSONDocuments {",
            "    static let all: [String: String] = [",
        ]
        for (name, url) in try documents(in: folder) {
            let text = try String(contentsOf: url, encoding: .utf8)
            // A raw string with enough `#`s that no text can end it early.
            var hashes = "#"
            while text.contains("\"" + hashes) { hashes += "#" }
            lines.append("        \"\(name)\": \(hashes)\"\"\"")
            lines.append(contentsOf: text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init))
            lines.append("\"\"\"\(hashes),")
        }
        lines += ["    ]", "}", ""]
        try lines.joined(separator: "\n").write(toFile: arguments[2], atomically: true, encoding: .utf8)
    }

    /// Every `.json` file under `folder`, by its relative path without `.json`, sorted.
    static func documents(in folder: URL) throws -> [(String, URL)] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
            throw CocoaError(.fileReadNoSuchFile)
        }
        var found: [(String, URL)] = []
        for case let url as URL in walker where url.pathExtension == "json" {
            let path = url.standardizedFileURL.path
            let relative = path.dropFirst(folder.path.count).drop(while: { $0 == "/" })
            found.append((String(relative.dropLast(5)), url))
        }
        return found.sorted { $0.0 < $1.0 }
    }
}
