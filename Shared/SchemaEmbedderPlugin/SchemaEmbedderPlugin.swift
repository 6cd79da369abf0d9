import Foundation
import PackagePlugin

/// Embeds `proto-json/` into the target that applies it: runs `SchemaEmbedder` whenever a
/// schema document changes, so the schemas have one copy, in `proto-json/`.
@main
struct SchemaEmbedderPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "proto-json")
        let output = context.pluginWorkDirectoryURL.appending(path: "ProtoJSONDocuments.swift")
        let inputs =
            FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" } ?? []
        return [
            .buildCommand(
                displayName: "Embedding the \(inputs.count) schema documents of proto-json/",
                executable: try context.tool(named: "SchemaEmbedder").url,
                arguments: [folder.path, output.path],
                inputFiles: inputs, outputFiles: [output])
        ]
    }
}
