import ArgumentParser
import FlowExport
import FlowLint
import FlowModel
import Foundation

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print the model of flow specs as Mermaid, Graphviz, JSON or an Arazzo workflow.",
        discussion: """
        mermaid      a sequence diagram per flow (participants, numbered
                     messages, dashed returns, alt/else from the alternates)
        dot          a Graphviz state diagram per flow (steps, transitions)
        json         the parsed model with scenarios and token cases
                     (schema: docs/schemas/flow-model.schema.json)
        arazzo       one Arazzo 1.0 document (YAML) for all the flows, a
                     workflow per flow (docs/arazzo.md); arazzo-json: JSON
        openapi      the OpenAPI 3.1 description of the operations the flows
                     call, the Arazzo document's source (openapi-json: JSON)

        Specs are linted first; export refuses specs with errors. With --out,
        arazzo writes NAME.arazzo.yaml and NAME.openapi.yaml (NAME: the flow
        id, or "flows" for several).

        Examples:
          flowspec export flows/apple-sign-in-web.md --format mermaid
          flowspec export flows --format dot --out diagrams/     one file per flow
          flowspec export --format json > model.json
          flowspec export flows/password-login.md --format arazzo --out arazzo/
        """
    )

    @Argument(help: "Spec files or directories (default: flows/).")
    var paths: [String] = []

    @Option(help: "mermaid, dot, json, arazzo, arazzo-json, openapi or openapi-json.")
    var format: ExportFormat

    @Option(help: "Only the flow with this id.")
    var flow: String?

    @Option(help: "Write one file per flow into this directory instead of standard output.")
    var out: String?

    func run() throws {
        let run = Linter().lint(paths: SpecPaths.resolve(paths))
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
        if format.isArazzo {
            try writeArazzo(flows)
            return
        }
        if let out {
            for flow in flows {
                let text = format == .json ? try JSONExporter.export([flow], generator: "flowspec \(FlowspecVersion.current)") : render(flow)
                try AtomicFileWriter.write(text, to: (out as NSString).appendingPathComponent("\(flow.id).\(format.fileExtension)"))
            }
            Terminal.write("wrote \(flows.count) file(s) to \(out)\n")
            return
        }
        switch format {
        case .json:
            Terminal.write(try JSONExporter.export(flows, generator: "flowspec \(FlowspecVersion.current)"))
        case .dot:
            Terminal.write(flows.map(render).joined(separator: "\n"))
        case .arazzo, .arazzoJSON, .openapi, .openapiJSON:
            break
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
        case .json, .arazzo, .arazzoJSON, .openapi, .openapiJSON: (try? JSONExporter.export([flow], generator: "flowspec")) ?? ""
        }
    }

    /// One Arazzo document for all the flows and the OpenAPI description it names as source.
    private func writeArazzo(_ flows: [Flow]) throws {
        let json = format == .arazzoJSON || format == .openapiJSON
        let name = flows.count == 1 ? flows[0].id : "flows"
        let ext = json ? "json" : "yaml"
        let openAPIFile = "\(name).openapi.\(ext)"
        let document = ArazzoExporter.document(for: flows, openAPIFile: openAPIFile)
        let arazzoText = try ArazzoExporter.encode(document, json: json)
        let openAPIText = try ArazzoExporter.encode(OpenAPIDescription(flows: flows, title: document.info.title), json: json)
        if let out {
            try AtomicFileWriter.write(arazzoText, to: (out as NSString).appendingPathComponent("\(name).arazzo.\(ext)"))
            try AtomicFileWriter.write(openAPIText, to: (out as NSString).appendingPathComponent(openAPIFile))
            Terminal.write("wrote \(name).arazzo.\(ext) and \(openAPIFile) to \(out)\n")
        } else if format == .openapi || format == .openapiJSON {
            Terminal.write(openAPIText)
        } else {
            Terminal.write(arazzoText)
            Terminal.writeError("export: the workflows' source description is \(openAPIFile): write it with --format \(json ? "openapi-json" : "openapi"), or use --out DIR for both\n")
        }
    }
}

enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
    case mermaid, dot, json, arazzo
    case arazzoJSON = "arazzo-json"
    case openapi
    case openapiJSON = "openapi-json"

    var isArazzo: Bool { self == .arazzo || self == .arazzoJSON || self == .openapi || self == .openapiJSON }

    var fileExtension: String {
        switch self {
        case .mermaid: "mmd"
        case .dot: "dot"
        case .json, .arazzoJSON, .openapiJSON: "json"
        case .arazzo, .openapi: "yaml"
        }
    }
}
