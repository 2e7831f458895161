// fuzz-arazzo: any bytes through ArazzoImporter.importDocument(bytes:file:), then what
// `flowspec import` does with each flow: SpecWriter writes the spec and the linter reads it.
import CFuzzer
#if canImport(Glibc)
import Glibc
#endif
import FlowImport
import FlowLint
import FlowModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArazzo(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    _ = ArazzoImporter.recognizes(bytes)
    let result = ArazzoImporter().importDocument(bytes: bytes, file: "fuzz.arazzo.yaml")
    _ = DiagnosticPrinter.text(result.report, color: false, lines: { _, _ in nil })
    for flow in result.flows {
        let text = SpecWriter.write(flow)
        let run = Linter().lint(sources: [(file: "\(flow.id).md", text: text)])
        _ = DiagnosticPrinter.text(run.diagnostics, color: false, lines: { _, _ in nil })
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, { data, size in fuzzArazzo(data, size) }))
