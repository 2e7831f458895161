import CCmarkGFM

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The words of a parsed Markdown block for the search index: what cmark-gfm's plain-text
/// renderer writes, once each run of whitespace is one space (the index keeps text that way,
/// `PageRenderer.clip`). cmark's renderer goes code point by code point through its generic
/// line-wrapping writer, which made it 6× the cost of the same block's HTML; this walk appends
/// each node's literal whole. It writes what that renderer does, node by node (cmark-gfm's
/// `plaintext.c` and its extensions' plain-text functions): text, code and code blocks as they
/// are; list markers (`-`, `N.` or `N)` by the item's place in its list, task items counted);
/// task items as `- [x]` / `- [ ]`; `~` around struck text; tables as rows of `|` with the
/// delimiter row after the header; nothing for raw HTML; a space between blocks and for line
/// breaks. `SearchTextTests` holds it to cmark's renderer on a corpus of every construct.
extension CmarkDocument {
    func searchText() -> String { searchText(of: [root]) }

    /// The words of some of the document's nodes, one after the other (the document node itself
    /// writes nothing, so its top-level blocks give what the whole document gives).
    func searchText(of nodes: [CmarkNode]) -> String { String(decoding: searchBytes(of: nodes), as: UTF8.self) }

    /// `searchText(of:)`'s UTF-8 bytes.
    func searchBytes(of nodes: [CmarkNode]) -> [UInt8] {
        var writer = SearchTextWriter()
        for root in nodes {
            guard let iterator = cmark_iter_new(root.pointer) else { continue }
            defer { cmark_iter_free(iterator) }
            while true {
                let event = cmark_iter_next(iterator)
                if event == CMARK_EVENT_DONE { break }
                guard let node = cmark_iter_get_node(iterator) else { continue }
                writer.visit(node, entering: event == CMARK_EVENT_ENTER)
            }
        }
        return writer.bytes
    }
}

private struct SearchTextWriter {
    private var out: [UInt8] = []
    /// The next number of each open list, innermost last: an item is numbered by its place in
    /// its own list, task items counted (as the installed cmark-gfm does).
    private var listNumbers: [Int32] = []

    /// The words, without the spaces at either end.
    var bytes: [UInt8] {
        var end = out.count
        while end > 0, out[end - 1] == 0x20 { end -= 1 }
        let start = out.first == 0x20 ? 1 : 0
        return Array(out[min(start, end)..<end])
    }

    private mutating func space() { if let last = out.last, last != 0x20 { out.append(0x20) } }

    private mutating func putLiteral(_ text: UnsafePointer<CChar>?) {
        guard let text else { return }
        // A typed buffer: appended with one copy (a raw buffer went byte by byte).
        let count = strlen(text)
        text.withMemoryRebound(to: UInt8.self, capacity: count) { out.append(contentsOf: UnsafeBufferPointer(start: $0, count: count)) }
    }

    private mutating func put(_ text: String) { out.append(contentsOf: text.utf8) }

    mutating func visit(_ node: OpaquePointer, entering: Bool) {
        switch cmark_node_get_type(node) {
        case CMARK_NODE_TEXT, CMARK_NODE_CODE:
            putLiteral(cmark_node_get_literal(node))
        case CMARK_NODE_CODE_BLOCK:
            space()
            putLiteral(cmark_node_get_literal(node))
            space()
        case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK, CMARK_NODE_PARAGRAPH, CMARK_NODE_HEADING, CMARK_NODE_THEMATIC_BREAK,
             CMARK_NODE_BLOCK_QUOTE, CMARK_NODE_HTML_BLOCK:
            space()
        case CMARK_NODE_LIST:
            space()
            if entering { listNumbers.append(cmark_node_get_list_start(node)) } else { listNumbers.removeLast() }
        case CMARK_NODE_ITEM:
            space()
            if entering { item(node) }
        case CMARK_NODE_HTML_INLINE, CMARK_NODE_EMPH, CMARK_NODE_STRONG, CMARK_NODE_LINK, CMARK_NODE_IMAGE, CMARK_NODE_DOCUMENT:
            break
        default:
            extensionNode(node, entering: entering)
        }
    }

    /// A list item's marker: a task item's from its extension (`- [x]`, `- [ ]`, in either kind
    /// of list), a numbered item's from its place in the list.
    private mutating func item(_ node: OpaquePointer) {
        let number = listNumbers.last ?? 1
        if !listNumbers.isEmpty { listNumbers[listNumbers.count - 1] += 1 }
        if let type = cmark_node_get_type_string(node), strcmp(type, "tasklist") == 0 {
            put(cmark_gfm_extensions_get_tasklist_item_checked(node) ? "- [x] " : "- [ ] ")
        } else if let list = cmark_node_parent(node), cmark_node_get_list_type(list) == CMARK_ORDERED_LIST {
            put(String(number) + (cmark_node_get_list_delim(list) == CMARK_PAREN_DELIM ? ") " : ". "))
        } else {
            put("- ")
        }
    }

    /// Tables and struck text, as their extensions' plain-text functions write them.
    private mutating func extensionNode(_ node: OpaquePointer, entering: Bool) {
        guard let type = cmark_node_get_type_string(node) else { return space() }
        if strcmp(type, "strikethrough") == 0 {
            put("~")
        } else if strcmp(type, "table_cell") == 0 {
            // (Bytes, not `put`: a cell's marks are most of a table's appends.)
            out.append(0x20)
            if !entering { out.append(UInt8(ascii: "|")) }
            guard !entering, let row = cmark_node_parent(node), cmark_gfm_extensions_get_table_row_is_header(row) != 0,
                cmark_node_next(node) == nil, let table = cmark_node_parent(row)
            else { return }
            space()
            put("|")
            let alignments = cmark_gfm_extensions_get_table_alignments(table)
            for column in 0..<Int(cmark_gfm_extensions_get_table_columns(table)) {
                switch alignments?[column] ?? 0 {
                case UInt8(ascii: "l"): put(" :-- |")
                case UInt8(ascii: "c"): put(" :-: |")
                case UInt8(ascii: "r"): put(" --: |")
                default: put(" --- |")
                }
            }
            space()
        } else if strcmp(type, "table_header") == 0 || strcmp(type, "table_row") == 0 {
            space()
            if entering { out.append(UInt8(ascii: "|")) }
        } else {
            space()  // a table, or a block of an extension this walk does not know
        }
    }
}
