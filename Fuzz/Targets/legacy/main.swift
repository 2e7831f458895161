// fuzz-legacy: any bytes through LegacyImporter.importDocument(bytes:file:), then what
// `flowspec import` does with the result: SpecWriter writes the spec and the linter reads it.
import CFuzzer
#if canImport(Glibc)
import Glibc
#endif
import FlowImport
import FlowLint
import FlowModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLegacy(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let result = LegacyImporter().importDocument(bytes: bytes, file: "legacy.md")
    _ = DiagnosticPrinter.text(result.report, color: false, lines: { _, _ in nil })
    guard let flow = result.flow else { return 0 }
    let text = SpecWriter.write(flow)
    let run = Linter().lint(sources: [(file: "\(flow.id).md", text: text)])
    _ = DiagnosticPrinter.text(run.diagnostics, color: false, lines: { _, _ in nil })
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, { data, size in fuzzLegacy(data, size) }))
