import Foundation
import PackagePlugin

/// Compiles the files of repo-template/ into the target that runs `rollout init`, so an installed
/// binary needs no data files beside it and the template has one source of truth.
@main
struct EmbedTemplate: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let template = context.package.directoryURL.appending(path: "repo-template")
        let files = try FileManager.default.contentsOfDirectory(at: template, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedTemplate.swift")
        return [
            .buildCommand(
                displayName: "Embedding repo-template into \(target.name)",
                executable: try context.tool(named: "embed-template").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output])
        ]
    }
}
