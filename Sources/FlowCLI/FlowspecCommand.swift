import ArgumentParser

/// The root command. Each subcommand lives in its own file and hands off to a library type.
public struct FlowspecCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "flowspec",
        abstract: "Integration-flow specs as the single source of truth: lint them, publish them, check a backend against them.",
        discussion: """
        Flow specs are Markdown files with YAML front matter (see docs/flow-format.md).
        Typical use:
          flowspec lint flows/            report problems with file:line:col
          flowspec build flows/           render the documentation site into site/_build/
          flowspec check flows/           run every scenario against the embedded mock backend
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
}

public enum FlowspecVersion {
    public static let current = "0.1.0"
}
