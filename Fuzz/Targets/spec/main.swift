// fuzz-spec: any bytes through SpecParser.parse(bytes:file:), then the linter and the
// diagnostic printers, as `flowspec lint` runs them.
import CFuzzer
#if canImport(Glibc)
import Glibc
#endif
import FlowLint
import FlowModel
import FlowParser

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSpec(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
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
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, { data, size in fuzzSpec(data, size) }))
