import ArgumentParser
import FlowModel
import FlowSite

/// The root command. Each subcommand lives in its own file and hands off to a library type.
public struct FlowspecCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "flowspec",
        abstract: "Integration-flow specs as the single source of truth: lint them, publish them, check a backend against them.",
        discussion: """
        Flow specs are Markdown files with YAML front matter (see docs/flow-format.md).
        Typical use:
          flowspec lint flows/     report problems with file:line:col
          flowspec build flows/    render the documentation site into site/_build/
          flowspec check flows/    run every scenario against the embedded mock
        Exit codes: 0 ok, 1 findings or failures, 2 unusable input, 3 backend unreachable.
        """,
        version: FlowspecVersion.current,
        subcommands: [
            LintCommand.self,
            ExportCommand.self,
            ImportCommand.self,
            BuildCommand.self,
            ServeCommand.self,
            CheckCommand.self,
            MockCommand.self,
        ]
    )

    public init() {}

    /// `main()`, but a first argument that names no subcommand is refused with the closest
    /// one (`flowspec chek` → "did you mean 'check'?"), exit status 64 like every usage error.
    public static func mainSuggestingCommands(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) async {
        if let message = unknownSubcommand(in: arguments) { exit(withError: ValidationError(message)) }
        // A site build's set-up starts on another core while ArgumentParser parses the arguments.
        let siteCommands = [BuildCommand.configuration.commandName, ServeCommand.configuration.commandName]
        if let first = arguments.first, siteCommands.contains(first) { SiteBuilder.prepare() }
        await main(arguments)
    }

    /// The message for a first argument that is not an option and names no subcommand.
    static func unknownSubcommand(in arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
        guard !names.contains(first) else { return nil }
        let written = TerminalText.escaped(first)
        if let closest = Suggestion.closest(to: first, among: names) {
            return "unknown command '\(written)'; did you mean '\(closest)'?"
        }
        return "unknown command '\(written)'; commands: \(names.joined(separator: ", "))"
    }
}

public enum FlowspecVersion {
    public static let current = "0.1.0"
}
