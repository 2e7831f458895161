import FlowParser

/// One line of inline Markdown (a title, a label) as plain text, for SVG and `<title>`.
enum PlainText {
    static func of(_ text: String) -> String {
        guard text.utf8.contains(where: { "`*_[]<>&\\!~".utf8.contains($0) }) else { return text }
        // `<` is escaped first: in a one-line label, angle brackets are text the writer typed,
        // shown literally (and escaped on output), never dropped as raw HTML.
        return MarkdownRenderer.plainText(source: literalAngles(text)).trimmingCharacters()
    }

    static func literalAngles(_ text: String) -> String {
        text.contains("<") ? text.replacingOccurrences(of: "<", with: "\\<") : text
    }
}
