import CCmarkGFM
import CCmarkInlines
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// cmark-gfm's extensions registry is not thread-safe: register once, before any concurrency.
/// A Swift global is initialised exactly once, thread-safely, on first use.
private let registerExtensions: Void = {
    cmark_gfm_core_extensions_ensure_registered()
}()

/// cmark-gfm 0.29 (the version Debian ships) keeps the inline parser's table of special
/// characters in process-wide arrays: `cmark_parser_finish` marks the attached extensions'
/// characters (`~`, `:`, `w`, …) before it parses the inlines and unmarks them after. Two
/// parsers finishing at once let one unmark them under the other, whose autolinks and
/// strikethrough silently do not happen (`CmarkConcurrencyTests`). Every parser here has the
/// same extensions, so CCmarkInlines marks them once and never unmarks them (it replaces the
/// library's marking function); from then on inlines are parsed on every core at once. Until
/// then, and for good if the library were to bind its own function, they are parsed one
/// document at a time under this lock (at 2 000 flows a full build waited on it some 900
/// times). Later cmark-gfm keeps the table per parser.
private let inlineParsing = Mutex(())

/// A parsed cmark-gfm document. Its parser, nodes and renderings come from the thread's arena
/// (CCmarkInlines' CmarkArena.c), reused at once when the thread's last document goes: no walk
/// to free the nodes one by one, no allocator call per node.
/// Not Sendable, and made, used and dropped inside one synchronous call (the arena is the
/// thread's): a parse, a rendering.
package final class CmarkDocument {
    private let parser: OpaquePointer
    private let arena: OpaquePointer
    package let root: CmarkNode

    package init(markdown: ArraySlice<UInt8>, options: Int32 = CMARK_OPT_SOURCEPOS) {
        _ = registerExtensions
        arena = flowspec_cmark_arena_open()
        let parser: OpaquePointer = cmark_parser_new_with_mem(options, flowspec_cmark_arena_mem().assumingMemoryBound(to: cmark_mem.self))
        self.parser = parser
        for name in ["table", "strikethrough", "autolink", "tasklist"] {
            if let extensionPointer = cmark_find_syntax_extension(name) {
                cmark_parser_attach_syntax_extension(parser, extensionPointer)
            }
        }
        markdown.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    cmark_parser_feed(parser, $0, buffer.count)
                }
            }
        }
        var document: OpaquePointer?
        if Self.parsesInlinesConcurrently {
            document = cmark_parser_finish(parser)
        } else {
            inlineParsing.withLock { _ in document = cmark_parser_finish(parser) }
        }
        root = CmarkNode(pointer: document!)
    }

    /// Whether the special characters are marked for good, so that `cmark_parser_finish` needs
    /// no lock (after the first document, when CCmarkInlines' function is the one cmark calls).
    static var parsesInlinesConcurrently: Bool { flowspec_cmark_special_characters_kept() != 0 }

    /// The tree, the parser and the renderings are the arena's: closing it frees them.
    deinit {
        flowspec_cmark_arena_close(arena)
    }

    /// Renders the whole document as HTML with the attached extensions.
    func renderHTML(options: Int32) -> String {
        let extensions = cmark_parser_get_syntax_extensions(parser)
        guard let html = cmark_render_html(root.pointer, options, extensions) else { return "" }
        return String(cString: html)
    }

    /// HTML of some of the document's nodes, one after the other: for top-level blocks, what the
    /// whole document's render writes for them.
    func renderHTML(_ nodes: [CmarkNode], options: Int32) -> [UInt8] {
        let extensions = cmark_parser_get_syntax_extensions(parser)
        var bytes: [UInt8] = []
        for node in nodes {
            guard let html = cmark_render_html(node.pointer, options, extensions) else { continue }
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: html, count: strlen(html)))
        }
        return bytes
    }

    func renderPlainText(options: Int32) -> String {
        guard let text = cmark_render_plaintext(root.pointer, options, 0) else { return "" }
        return String(cString: text)
    }
}

/// The names cmark gives its core node types (`cmark_node_get_type_string` of a node of each),
/// by type code: a node's `type` without making a String from C for every node the parser
/// looks at. The codes are cmark's constants (`CMARK_NODE_TYPE_BLOCK | n`,
/// `CMARK_NODE_TYPE_INLINE | n`, n from 1 to `CMARK_NODE_LAST_…`); extensions register theirs
/// after those at run time and are not here.
enum CmarkTypeNames {
    /// `CMARK_NODE_TYPE_BLOCK`, `CMARK_NODE_TYPE_INLINE` and the bits of the number in a code.
    private static let blockKind: UInt32 = 0x8000, inlineKind: UInt32 = 0xC000, numberBits: UInt32 = 0x3FFF
    static let block = names(kind: blockKind, last: UInt32(CMARK_NODE_FOOTNOTE_DEFINITION.rawValue))
    static let inline = names(kind: inlineKind, last: UInt32(CMARK_NODE_FOOTNOTE_REFERENCE.rawValue))

    private static func names(kind: UInt32, last: UInt32) -> [String] {
        (0...(last & numberBits)).map { index in
            guard index > 0, let node = cmark_node_new(cmark_node_type(rawValue: .init(kind | index))) else { return "" }
            defer { cmark_node_free(node) }
            return cmark_node_get_type_string(node).map { String(cString: $0) } ?? ""
        }
    }

    /// The name of a core type, nil for another code.
    @inline(__always)
    static func core(_ code: UInt32) -> String? {
        let index = Int(code & numberBits)
        switch code & ~numberBits {
        case blockKind: return index > 0 && index < block.count ? block[index] : nil
        case inlineKind: return index > 0 && index < inline.count ? inline[index] : nil
        default: return nil
        }
    }
}

/// A borrowed node of a `CmarkDocument`; valid while the document lives.
package struct CmarkNode {
    let pointer: OpaquePointer

    /// The node's type name: `heading`, `paragraph`, `list`, `item`, `code_block`, `table`,
    /// `table_header`, `table_row`, `table_cell`, `text`, `code`… Extension node types are
    /// runtime values, so names are compared, not constants. A core type's name comes from
    /// `CmarkTypeNames` (made once); only a name an extension gives is made from its C string.
    package var type: String {
        // A node an extension took over (a task list's `item`) is named by the extension.
        guard cmark_node_get_syntax_extension(pointer) == nil else { return typeNameFromC }
        return CmarkTypeNames.core(UInt32(cmark_node_get_type(pointer).rawValue)) ?? typeNameFromC
    }

    /// `type` as cmark writes it, made from its C string.
    package var typeNameFromC: String {
        guard let name = cmark_node_get_type_string(pointer) else { return "" }
        return String(cString: name)
    }

    package var startLine: Int { Int(cmark_node_get_start_line(pointer)) }
    package var startColumn: Int { Int(cmark_node_get_start_column(pointer)) }
    package var endLine: Int { Int(cmark_node_get_end_line(pointer)) }
    var endColumn: Int { Int(cmark_node_get_end_column(pointer)) }
    package var headingLevel: Int { Int(cmark_node_get_heading_level(pointer)) }

    package var literal: String? {
        guard let text = cmark_node_get_literal(pointer) else { return nil }
        return String(cString: text)
    }

    package var fenceInfo: String? {
        guard let text = cmark_node_get_fence_info(pointer) else { return nil }
        return String(cString: text)
    }

    var isFenced: Bool { cmark_node_get_fenced(pointer, nil, nil, nil) != 0 }

    package var firstChild: CmarkNode? { cmark_node_first_child(pointer).map(CmarkNode.init) }
    package var next: CmarkNode? { cmark_node_next(pointer).map(CmarkNode.init) }

    /// Direct children, in order.
    package var children: [CmarkNode] {
        var result: [CmarkNode] = []
        var child = firstChild
        while let node = child {
            result.append(node)
            child = node.next
        }
        return result
    }

    /// Concatenated text of the node's inline descendants (text, code, line breaks as spaces),
    /// gathered with cmark's iterator, never by recursion.
    package var plainText: String {
        var out = ""
        guard let iterator = cmark_iter_new(pointer) else { return out }
        defer { cmark_iter_free(iterator) }
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
            let child = CmarkNode(pointer: node)
            switch child.type {
            case "text", "code", "html_inline":
                out += child.literal ?? ""
            case "softbreak", "linebreak":
                out += " "
            default:
                break
            }
        }
        return out
    }
}
