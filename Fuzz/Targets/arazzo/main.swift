// fuzz-arazzo: any bytes through ArazzoImporter.importDocument(bytes:file:), then what
// `flowspec import` does with each flow: SpecWriter writes the spec and the linter reads it.
import FuzzDriver
import FlowImport
import FlowLint
import FlowModel

func fuzzArazzo(_ bytes: [UInt8]) {
    _ = ArazzoImporter.recognizes(bytes)
    let result = ArazzoImporter().importDocument(bytes: bytes, file: "fuzz.arazzo.yaml")
    _ = DiagnosticPrinter.text(result.report, color: false, lines: { _, _ in nil })
    for flow in result.flows {
        let text = SpecWriter.write(flow)
        let run = Linter().lint(sources: [(file: "\(flow.id).md", text: text)])
        _ = DiagnosticPrinter.text(run.diagnostics, color: false, lines: { _, _ in nil })
    }
}

runFuzzer(fuzzArazzo)
