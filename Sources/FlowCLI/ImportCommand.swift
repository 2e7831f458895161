import ArgumentParser
import FlowExport
import FlowLint
import FlowModel
import FlowParser
import Foundation

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Convert a legacy integration document into a flow spec.",
        discussion: """
        Reads a document in the older style — a fenced ```yaml header, a list of \
        `**Bước N:**` / `**Step N:**` / `**Adım N:**` items with `Nếu …:` / `If …:` branches, \
        and a Mermaid sequenceDiagram — and writes a spec in the flow format \
        (docs/flow-format.md). Actors come from the diagram's participants, each step's \
        actors from its `%% Step N` messages, requests from an Endpoint/Method table.

        The legacy format never says where a branch goes, so targets are inferred and every \
        inference is reported with its line; anything that could not be mapped is reported \
        too. The written spec is then linted: what remains are problems of the source \
        (e.g. a step number used twice).

        Examples:
          flowspec import legacy/apple-login.md -o flows/apple-login.md
          flowspec import doc.txt --id apple-web --lang vi > flows/apple-web.md
        """
    )

    @Argument(help: "The legacy document.")
    var legacy: String

    @Option(name: [.short, .customLong("output")], help: "Write the spec here (atomically) instead of standard output.")
    var output: String?

    @Option(help: "Flow id (default: derived from the title).")
    var id: String?

    @Option(help: "Language of the prose (default: detected: vi, tr or en).")
    var lang: String?

    @Flag(help: "Overwrite --output if it exists.")
    var force = false

    func run() throws {
        guard let data = FileManager.default.contents(atPath: legacy) else {
            Terminal.writeError("import: cannot read \(legacy)\n")
            throw ExitCode(CommandExit.badInput)
        }
        let result = LegacyImporter(id: id, lang: lang).importDocument(bytes: [UInt8](data), file: legacy)
        let color = Terminal.useColor(.auto, stream: STDERR_FILENO)
        Terminal.writeError(DiagnosticPrinter.text(result.report, color: color))
        guard let flow = result.flow else { throw ExitCode(CommandExit.badInput) }
        let text = SpecWriter.write(flow)
        let target = output ?? "\(flow.id).md"
        // Lint what was written, as it will be read.
        let lintRun = Linter().lint(sources: [(file: target, text: text)])
        if let output {
            if FileManager.default.fileExists(atPath: output), !force {
                Terminal.writeError("import: \(output) exists; pass --force to overwrite\n")
                throw ExitCode(CommandExit.badInput)
            }
            try AtomicFile.write(text, to: output)
            Terminal.writeError("wrote \(output)\n")
        } else {
            Terminal.write(text)
        }
        Terminal.writeError(DiagnosticPrinter.text(lintRun.diagnostics, color: color, lines: { _, line in
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            return line >= 1 && line <= lines.count ? String(lines[line - 1]) : nil
        }))
        let mapped = result.report.filter { $0.severity == .warning }.count
        Terminal.writeError("import: \(flow.steps.count) steps, \(flow.actors.count) actors; \(mapped) item(s) not mapped; lint: "
                            + DiagnosticPrinter.summary(lintRun.diagnostics, files: 1) + "\n")
        if lintRun.hasErrors { throw ExitCode(CommandExit.failures) }
    }
}
