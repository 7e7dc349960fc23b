import Foundation
import PackagePlugin

/// Builds the server's OpenAPI document into its binary: the target's `openapi.json`, the one
/// source of the API's shape, becomes a Swift string (``OpenAPIDocument/json``) at each build, so
/// that `runanywhere` serves the file as it is wherever the binary is copied.
@main
struct OpenAPIDocumentEmbedder: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        guard let source = target as? SourceModuleTarget else { return [] }
        let document = source.directoryURL.appending(path: "openapi.json")
        let output = context.pluginWorkDirectoryURL.appending(path: "OpenAPIDocument+JSON.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(target.name)'s openapi.json", executable: try context.tool(named: "OpenAPIDocumentEmbed").url,
                arguments: [document.path(), output.path()], inputFiles: [document], outputFiles: [output]
            )
        ]
    }
}
