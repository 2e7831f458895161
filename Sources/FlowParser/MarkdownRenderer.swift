import CCmarkGFM
import FlowModel

/// Renders the prose kept in the model (never its structure) to HTML or plain text with
/// cmark-gfm. Safe by default: raw HTML is omitted and `javascript:`/`vbscript:`/`file:`/
/// `data:` link targets are dropped, even when raw HTML is allowed.
public enum MarkdownRenderer {
    /// HTML for a block of Markdown (GFM tables, strikethrough, autolinks, task lists).
    public static func html(_ markdown: Markdown, allowRawHTML: Bool = false) -> String {
        html(source: markdown.source, allowRawHTML: allowRawHTML)
    }

    public static func html(source: String, allowRawHTML: Bool = false) -> String {
        let document = CmarkDocument(markdown: Array(source.utf8)[...], options: CMARK_OPT_DEFAULT)
        neutraliseDangerousLinks(in: document.root)
        var options = CMARK_OPT_DEFAULT
        if allowRawHTML { options |= CMARK_OPT_UNSAFE }
        return document.renderHTML(options: options)
    }

    /// HTML for one line of inline Markdown (a title, an alternate label): no `<p>` wrapper.
    public static func inlineHTML(_ text: String, allowRawHTML: Bool = false) -> String {
        var html = html(source: text.replacingNewlines(), allowRawHTML: allowRawHTML)
        if html.hasPrefix("<p>") { html.removeFirst(3) }
        while html.hasSuffix("\n") { html.removeLast() }
        if html.hasSuffix("</p>") { html.removeLast(4) }
        return html
    }

    /// Plain text of a block of Markdown, for the search index and summaries.
    public static func plainText(_ markdown: Markdown) -> String {
        plainText(source: markdown.source)
    }

    public static func plainText(source: String) -> String {
        let document = CmarkDocument(markdown: Array(source.utf8)[...], options: CMARK_OPT_DEFAULT)
        return document.renderPlainText(options: CMARK_OPT_DEFAULT)
    }

    /// Whether a link target may appear in a page.
    public static func isSafeURL(_ url: String) -> Bool {
        let scheme = url.trimmingCharacters().lowercased().filter { !$0.isWhitespace && $0 != "\u{0}" }
        for dangerous in ["javascript:", "vbscript:", "file:", "data:"] where scheme.hasPrefix(dangerous) {
            return false
        }
        return true
    }

    private static func neutraliseDangerousLinks(in root: CmarkNode) {
        guard let iterator = cmark_iter_new(root.pointer) else { return }
        defer { cmark_iter_free(iterator) }
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
            let type = CmarkNode(pointer: node).type
            guard type == "link" || type == "image", let url = cmark_node_get_url(node) else { continue }
            if !isSafeURL(String(cString: url)) {
                cmark_node_set_url(node, "")
            }
        }
    }
}

extension String {
    /// Line breaks (`\n`, `\r`, `\r\n`) become one space each, on UTF-8 bytes.
    func replacingNewlines() -> String {
        guard utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return self }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var previousCR = false
        for byte in utf8 {
            if byte == 0x0A, previousCR { previousCR = false; continue }
            previousCR = byte == 0x0D
            out.append(byte == 0x0A || byte == 0x0D ? 0x20 : byte)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
