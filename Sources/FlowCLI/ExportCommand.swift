import ArgumentParser
import FlowExport
import FlowLint
import FlowModel
import Foundation

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print the model of flow specs as Mermaid, Graphviz or JSON.",
        discussion: """
        mermaid  a sequence diagram per flow (participants, numbered messages, dashed returns,
                 alt/else frames from the alternates)
        dot      a Graphviz state diagram per flow (steps, transitions, outcomes)
        json     the parsed model with scenarios and token cases
                 (schema: docs/schemas/flow-model.schema.json)

        Specs are linted first; export refuses specs with errors.

        Examples:
          flowspec export flows/apple-sign-in-web.md --format mermaid
          flowspec export flows --format dot --out diagrams/     one file per flow
          flowspec export --format json > model.json
        """
    )

    @Argument(help: "Spec files or directories (default: flows/).")
    var paths: [String] = []

    @Option(help: "mermaid, dot or json.")
    var format: ExportFormat

    @Option(help: "Only the flow with this id.")
    var flow: String?

    @Option(help: "Write one file per flow into this directory instead of standard output.")
    var out: String?

    func run() throws {
        let run = Linter().lint(paths: paths.isEmpty ? ["flows"] : paths)
        if run.hasErrors {
            Terminal.writeError(DiagnosticPrinter.text(run.diagnostics.filter { $0.severity == .error }, color: Terminal.useColor(.auto, stream: STDERR_FILENO)))
            Terminal.writeError("export: fix the errors above first\n")
            throw ExitCode(run.exitCode(strict: false))
        }
        var flows = run.flows
        if let id = flow {
            flows = flows.filter { $0.id == id }
            guard !flows.isEmpty else {
                Terminal.writeError("export: no flow with id '\(id)' (have: \(run.flows.map(\.id).joined(separator: ", ")))\n")
                throw ExitCode(CommandExit.badInput)
            }
        }
        if let out {
            for flow in flows {
                let text = format == .json ? try JSONExporter.export([flow], generator: "flowspec \(FlowspecVersion.current)") : render(flow)
                try AtomicFile.write(text, to: (out as NSString).appendingPathComponent("\(flow.id).\(format.fileExtension)"))
            }
            Terminal.write("wrote \(flows.count) file(s) to \(out)\n")
            return
        }
        switch format {
        case .json:
            Terminal.write(try JSONExporter.export(flows, generator: "flowspec \(FlowspecVersion.current)"))
        case .dot:
            Terminal.write(flows.map(render).joined(separator: "\n"))
        case .mermaid:
            guard flows.count == 1 else {
                Terminal.writeError("export: Mermaid holds one diagram per file; pick one with --flow ID (\(flows.map(\.id).joined(separator: ", "))) or use --out DIR\n")
                throw ExitCode(CommandExit.badInput)
            }
            Terminal.write(render(flows[0]))
        }
    }

    private func render(_ flow: Flow) -> String {
        switch format {
        case .mermaid: MermaidExporter.export(flow)
        case .dot: DotExporter.export(flow)
        case .json: (try? JSONExporter.export([flow], generator: "flowspec")) ?? ""
        }
    }
}

enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
    case mermaid, dot, json

    var fileExtension: String {
        switch self {
        case .mermaid: "mmd"
        case .dot: "dot"
        case .json: "json"
        }
    }
}
