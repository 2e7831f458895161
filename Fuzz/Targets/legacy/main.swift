// fuzz-legacy: any bytes through LegacyImporter.importDocument(bytes:file:), then what
// `flowspec import` does with the result: SpecWriter writes the spec and the linter reads it.
import FuzzDriver
import FlowImport
import FlowLint
import FlowModel

func fuzzLegacy(_ bytes: [UInt8]) {
    let result = LegacyImporter().importDocument(bytes: bytes, file: "legacy.md")
    _ = DiagnosticPrinter.text(result.report, color: false, lines: { _, _ in nil })
    guard let flow = result.flow else { return }
    let text = SpecWriter.write(flow)
    let run = Linter().lint(sources: [(file: "\(flow.id).md", text: text)])
    _ = DiagnosticPrinter.text(run.diagnostics, color: false, lines: { _, _ in nil })
}

runFuzzer(fuzzLegacy)
