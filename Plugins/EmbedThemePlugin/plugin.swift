import Foundation
import PackagePlugin

/// Embeds `Sources/FlowSite/Theme/**` into the FlowSite module as Swift string literals, so the
/// default theme ships inside the `flowspec` binary (SwiftPM resources on Linux are a separate
/// bundle directory that would have to travel with the executable).
@main
struct EmbedThemePlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let themeDirectory = context.package.directoryURL.appending(path: "Sources/FlowSite/Theme")
        let files = Self.files(under: themeDirectory)
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedTheme.swift")
        return [
            .buildCommand(
                displayName: "Embedding FlowSite theme (\(files.count) files)",
                executable: try context.tool(named: "FlowSiteEmbedTheme").url,
                arguments: [themeDirectory.path(percentEncoded: false), output.path(percentEncoded: false)],
                inputFiles: files,
                outputFiles: [output]
            ),
        ]
    }

    static func files(under directory: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(
            at: directory, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles]
        ) else { return [] }
        var result: [URL] = []
        for case let url as URL in enumerator {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                result.append(url)
            }
        }
        return result.sorted { $0.path < $1.path }
    }
}
