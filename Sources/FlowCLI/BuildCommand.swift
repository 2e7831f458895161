import ArgumentParser
import FlowLint
import FlowModel
import FlowSite
import Foundation

struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Render the documentation site from the flow specs.",
        discussion: """
        Lints the specs first: errors stop the build (nothing is written, the previous site \
        stays as it was), warnings are printed and the build goes on. Then renders the index, \
        one page per flow (sequence and state diagrams drawn at build time), and a search page, \
        into a temporary folder that replaces the output folder in one step.

        Rebuilds are incremental: pages whose spec, translations, theme and configuration did \
        not change are reused, and unchanged specs are not parsed again. When a rebuild changed \
        few pages, the folder it replaced is kept beside the output as .NAME.previous (git \
        ignores it; it shares the unchanged pages with the site) and the next rebuild starts \
        from it; --clean keeps none. Output is deterministic: the same input gives byte-identical files.

        Examples:
          flowspec build                          flows/ → site/_build/
          flowspec build flows/ --out public      another output folder
          flowspec build --results report.json    show check verdicts beside each step

        Configuration: site/site.yml (see docs/site.md). Theme overrides: site/theme/.
        Exit status: 0 built, 1 lint errors, 2 invalid configuration or input.
        """
    )

    @OptionGroup var site: SiteOptions

    @Flag(name: .long, help: "Render every page, ignoring the previous build.")
    var clean = false

    @Option(help: "Colour: auto (only on a terminal), always, never.")
    var color: ColorMode = .auto

    func run() throws {
        var options = try site.buildOptions(incremental: !clean)
        options.skipTeardown = true  // the process exits right after; freeing the models would only cost time
        let report: SiteBuildReport
        do {
            report = try SiteBuilder(options: options).build()
        } catch {
            Terminal.writeError("error: \(error)\n")
            throw ExitCode(CommandExit.badInput)
        }
        if !report.diagnostics.isEmpty {
            Terminal.writeError(DiagnosticPrinter.text(report.diagnostics, color: Terminal.useColor(color, stream: STDERR_FILENO)))
            Terminal.writeError(DiagnosticPrinter.summary(report.diagnostics, files: report.files.count) + "\n")
        }
        guard report.succeeded else {
            Terminal.writeError("error: the site was not built; fix the errors above (the previous site is unchanged)\n")
            throw ExitCode(report.diagnostics.contains { $0.isUnusableInput && $0.severity == .error } ? CommandExit.badInput : CommandExit.failures)
        }
        let pages = report.renderedPageCount + report.reusedPageCount
        Terminal.write("Built \(pages) flow page\(pages == 1 ? "" : "s") (\(report.renderedPageCount) rendered, \(report.reusedPageCount) unchanged)\n")
        Terminal.write("Site: \(report.indexPath)\n")
    }
}
