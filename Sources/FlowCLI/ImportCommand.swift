import ArgumentParser
import FlowImport
import FlowLint
import FlowModel
import Foundation

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Convert a legacy integration document or an Arazzo workflow document into flow specs.",
        discussion: """
        An Arazzo 1.0 document (YAML or JSON, recognised by its top-level `arazzo:` key) becomes \
        one spec per workflow (docs/arazzo.md): each step an `app → backend` step with its \
        request, its success criteria as the expect block, its outputs as captures, its actions \
        as branches; a document written by `flowspec export --format arazzo` imports back whole \
        (actors, the steps a runner cannot take, token rules). The specs have no prose: a note \
        at the top says what to add. Operations named by operationId are looked up in the \
        document's OpenAPI source descriptions (local files beside it).

        Any other document is read in the older style — a fenced ```yaml header, a list of \
        `**Bước N:**` / `**Step N:**` / `**Adım N:**` items with `Nếu …:` / `If …:` branches, \
        and a Mermaid sequenceDiagram — and written as a spec in the flow format \
        (docs/flow-format.md). Actors come from the diagram's participants, each step's \
        actors from its `%% Step N` messages, requests from an Endpoint/Method table. The \
        legacy format never says where a branch goes, so targets are inferred and every \
        inference is reported with its line.

        Anything that could not be mapped is reported. The written specs are then linted: what \
        remains are problems of the source (e.g. a step number used twice).

        Examples:
          flowspec import legacy/apple-login.md -o flows/apple-login.md
          flowspec import doc.txt --id apple-web --lang vi > flows/apple-web.md
          flowspec import checkout.arazzo.yaml -o flows/          one spec per workflow
        """
    )

    @Argument(help: "The legacy document, or an Arazzo document (.yaml/.json).")
    var input: String

    @Option(name: [.short, .customLong("output")], help: "Write the spec here (atomically) instead of standard output; a directory for several workflows.")
    var output: String?

    @Option(help: "Flow id (default: derived from the title, or the workflowId).")
    var id: String?

    @Option(help: "Language of the prose (default: detected: vi, tr or en; Arazzo: en or the exported flow's).")
    var lang: String?

    @Flag(help: "Overwrite existing output files.")
    var force = false

    func run() throws {
        guard let data = FileManager.default.contents(atPath: input) else {
            Terminal.writeError("import: cannot read \(input)\n")
            throw ExitCode(CommandExit.badInput)
        }
        let bytes = [UInt8](data)
        let color = Terminal.useColor(.auto, stream: STDERR_FILENO)
        if ArazzoImporter.recognizes(bytes) {
            try importArazzo(bytes, color: color)
            return
        }
        let result = LegacyImporter(id: id, lang: lang).importDocument(bytes: bytes, file: input)
        Terminal.writeError(DiagnosticPrinter.text(result.report, color: color))
        guard let flow = result.flow else { throw ExitCode(CommandExit.badInput) }
        let mapped = result.report.filter { $0.severity == .warning }.count
        let clean = try emit(flow, to: output, color: color, summary: "\(mapped) item(s) not mapped")
        if !clean { throw ExitCode(CommandExit.failures) }
    }

    private func importArazzo(_ bytes: [UInt8], color: Bool) throws {
        let folder = PathText.folder(of: input)
        let result = ArazzoImporter().importDocument(bytes: bytes, file: input) { url in
            guard !url.contains("://") else { return nil }
            return FileManager.default.contents(atPath: (folder as NSString).appendingPathComponent(url)).map { [UInt8]($0) }
        }
        Terminal.writeError(DiagnosticPrinter.text(result.report, color: color))
        var flows = result.flows
        guard !flows.isEmpty else { throw ExitCode(CommandExit.badInput) }
        if let lang { for index in flows.indices { flows[index].lang = lang } }
        if let id, flows.count == 1 { flows[0].id = id }
        var isDirectory: ObjCBool = false
        let toFolder = output.map { $0.hasSuffix("/") || (FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && isDirectory.boolValue) } ?? false
        guard flows.count == 1 || toFolder else {
            Terminal.writeError("import: the document has \(flows.count) workflows; give -o DIR to write one spec each\n")
            throw ExitCode(CommandExit.badInput)
        }
        if toFolder, let output { try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true) }
        let mapped = result.report.filter { $0.severity == .warning }.count
        var clean = true
        for flow in flows {
            let target = toFolder ? output.map { ($0 as NSString).appendingPathComponent("\(flow.id).md") } : output
            clean = try emit(flow, to: target, color: color, summary: "\(mapped) item(s) not mapped") && clean
        }
        if !clean { throw ExitCode(CommandExit.failures) }
    }

    /// Writes `flow` as a spec (atomically, or to standard output), lints what was written as
    /// it will be read, and says so; false when the written spec has lint errors.
    private func emit(_ flow: Flow, to path: String?, color: Bool, summary: String) throws -> Bool {
        let text = SpecWriter.write(flow)
        let lintRun = Linter().lint(sources: [(file: path ?? "\(flow.id).md", text: text)])
        if let path {
            if FileManager.default.fileExists(atPath: path), !force {
                Terminal.writeError("import: \(path) exists; pass --force to overwrite\n")
                throw ExitCode(CommandExit.badInput)
            }
            try AtomicFileWriter.write(text, to: path)
            Terminal.writeError("wrote \(path)\n")
        } else {
            Terminal.write(text)
        }
        Terminal.writeError(DiagnosticPrinter.text(lintRun.diagnostics, color: color, lines: { _, line in
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            return line >= 1 && line <= lines.count ? String(lines[line - 1]) : nil
        }))
        Terminal.writeError("import: \(flow.id): \(flow.steps.count) steps, \(flow.actors.count) actors; \(summary); lint: "
                            + DiagnosticPrinter.summary(lintRun.diagnostics, files: 1) + "\n")
        return !lintRun.hasErrors
    }
}
