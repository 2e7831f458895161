// fuzz-spec: any bytes through SpecParser.parse(bytes:file:), then the linter and the
// diagnostic printers, as `flowspec lint` runs them.
import FuzzDriver
import FlowLint
import FlowModel
import FlowParser

func fuzzSpec(_ bytes: [UInt8]) {
    let file = "fuzz.md"
    let diagnostics: [Diagnostic]
    let text: String
    if let valid = String(validating: bytes, as: UTF8.self) {
        // Valid UTF-8: the editor entry (parses once, then every flow and corpus rule).
        let run = Linter().lint(sources: [(file: file, text: valid)])
        // The parser's contract (HostileInputTests): a flow, or a diagnostic saying why not.
        precondition(!run.flows.isEmpty || !run.diagnostics.isEmpty, "no flow and no diagnostic")
        diagnostics = run.diagnostics
        text = valid
    } else {
        // Not UTF-8: the byte-level checks (binary, invalid UTF-8) before any parsing.
        let result = SpecParser().parse(bytes: bytes, file: file)
        precondition(result.flow != nil || !result.diagnostics.isEmpty, "no flow and no diagnostic")
        diagnostics = result.diagnostics
        text = String(decoding: bytes, as: UTF8.self)
    }
    for diagnostic in diagnostics {
        precondition(diagnostic.location.line >= 1 && diagnostic.location.column >= 1, "bad location \(diagnostic.location)")
    }
    // The excerpt-and-caret printer, JSON and SARIF, over the input's own lines.
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    _ = DiagnosticPrinter.text(diagnostics, color: true, lines: { _, line in
        line >= 1 && line <= lines.count ? String(lines[line - 1]) : nil
    })
    _ = DiagnosticPrinter.json(diagnostics, files: [file])
    _ = DiagnosticPrinter.sarif(diagnostics, toolVersion: "fuzz")
}

runFuzzer(fuzzSpec)
