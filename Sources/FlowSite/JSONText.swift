import FlowModel

/// JSON written into pages and scripts with a fixed key order, so generated files are
/// byte-identical run to run. Strings go through FlowModel's one JSON string writer, script-safe.
enum JSONText {
    static func string(_ text: String) -> String { JSONNode.quote(text, scriptSafe: true) }

    static func array(_ items: [String]) -> String {
        "[" + items.joined(separator: ",") + "]"
    }
}
