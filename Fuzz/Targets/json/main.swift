// fuzz-json: any bytes through StrictJSON.parse under each duplicate-member policy; what
// parses must serialize (jsonBytes) and parse back to the same value.
import FlowModel
import FuzzDriver
import JOSE

func finite(_ node: JSONNode) -> Bool {
    switch node {
    case .double(let value): value.isFinite
    case .array(let elements): elements.allSatisfy(finite)
    case .object(let object): object.members.allSatisfy { finite($0.value) }
    default: true
    }
}

func fuzzJSON(_ bytes: [UInt8]) {
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
}

runFuzzer(fuzzJSON)
