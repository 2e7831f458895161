import ArgumentParser
import FlowLint
import FlowModel

struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check flow specs and report problems with file:line:col.",
        discussion: """
        Reads every *.md under the given paths (default: flows/) and reports syntax and \
        structure problems: front matter and YAML errors, duplicate or missing step numbers, \
        undeclared actors, dangling alternates, unreachable steps, steps with no way to an end, \
        placeholders used before they exist, malformed http/expect blocks, unknown token rules, \
        translations that drift from their original. Each finding has a code (FS202…) \
        documented in docs/flow-format.md#diagnostics.

        A flow whose front matter names an OpenAPI description (`openapi: \
        ../openapi/backend.yaml`) has its http and expect blocks checked against it: path and \
        method, request body, expected statuses, matched and captured JSON paths (FS901-FS907).

        Examples:
          flowspec lint                                 lint flows/
          flowspec lint flows/apple.md --strict         fail on warnings too
          flowspec lint --format sarif > lint.sarif     for code-scanning UIs
          flowspec lint --format github                 annotations in a GitHub job

        Exit status: 0 clean (warnings allowed unless --strict), 1 errors, 2 unusable input \
        (missing path, binary or non-UTF-8 file).
        """
    )

    @Argument(help: "Spec files or directories (default: flows/).")
    var paths: [String] = []

    @Option(help: "Output format: text, json, sarif or github (workflow-command annotations).")
    var format: LintFormat = .text

    @Flag(help: "Treat warnings as errors (exit 1 when any warning is reported).")
    var strict = false

    @Option(help: "Colour: auto (only on a terminal), always, never.")
    var color: ColorMode = .auto

    func run() throws {
        let run = Linter().lint(paths: SpecPaths.resolve(paths))
        switch format {
        case .text:
            let useColor = Terminal.useColor(color)
            Terminal.write(DiagnosticPrinter.text(run.diagnostics, color: useColor))
            Terminal.write(DiagnosticPrinter.summary(run.diagnostics, files: run.files.count) + "\n")
        case .json:
            Terminal.write(DiagnosticPrinter.json(run.diagnostics, files: run.files))
        case .sarif:
            Terminal.write(DiagnosticPrinter.sarif(run.diagnostics, toolVersion: FlowspecVersion.current))
        case .github:
            Terminal.write(GitHubAnnotations.render(run.diagnostics))
            Terminal.write(DiagnosticPrinter.summary(run.diagnostics, files: run.files.count) + "\n")
        }
        let code = run.exitCode(strict: strict)
        if code != 0 { throw ExitCode(code) }
    }
}

enum LintFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, sarif, github
}
