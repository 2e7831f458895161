// fuzz-json: any bytes through StrictJSON.parse under each duplicate-member policy; what
// parses must serialize (jsonBytes) and parse back to the same value.
import CFuzzer
#if canImport(Glibc)
import Glibc
#endif
import JOSE

func finite(_ node: JSONNode) -> Bool {
    switch node {
    case .double(let value): value.isFinite
    case .array(let elements): elements.allSatisfy(finite)
    case .object(let object): object.members.allSatisfy { finite($0.value) }
    default: true
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    for policy in [StrictJSON.DuplicateMembers.reject, .firstWins, .lastWins] {
        guard let node = try? StrictJSON.parse(bytes, duplicates: policy) else { continue }
        let written = node.jsonBytes()
        // Non-finite doubles (1e999) are written as null by design; skip the round trip then.
        guard finite(node) else { continue }
        let again: JSONNode
        do { again = try StrictJSON.parse(written) } catch {
            preconditionFailure("jsonBytes() output does not parse: \(error)")
        }
        precondition(again == node, "round trip changed the value")
    }
    _ = try? StrictJSON.parseObject(bytes, maxDepth: 4)
    _ = try? StrictJSON.parse(String(decoding: bytes, as: UTF8.self))
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, { data, size in fuzzJSON(data, size) }))
