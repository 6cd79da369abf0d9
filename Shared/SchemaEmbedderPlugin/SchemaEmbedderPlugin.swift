import Foundation
import PackagePlugin

/// Embeds `proto-json/` into the target that applies it, so the schemas have one copy, in
/// `proto-json/`, and a binary needs no resource files: runs `embed-schemas.sh` (beside this
/// file) whenever a schema document changes.
@main
struct SchemaEmbedderPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "proto-json")
        let script = context.package.directoryURL.appending(path: "Shared/SchemaEmbedderPlugin/embed-schemas.sh")
        let output = context.pluginWorkDirectoryURL.appending(path: "ProtoJSONDocuments.swift")
        let inputs =
            FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "json" } ?? []
        return [
            .buildCommand(
                displayName: "Embedding the \(inputs.count) schema documents of proto-json/",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, folder.path, output.path],
                inputFiles: inputs + [script], outputFiles: [output])
        ]
    }
}
