import FlowParser

/// One line of inline Markdown (a title, a label) as plain text, for SVG and `<title>`.
enum PlainText {
    static func of(_ text: String) -> String {
        var contiguous = text
        guard contiguous.withUTF8({ $0.contains(where: isMarkup) }) else { return text }
        // `<` is escaped first: in a one-line label, angle brackets are text the writer typed,
        // shown literally (and escaped on output), never dropped as raw HTML.
        return MarkdownRenderer.plainText(source: literalAngles(text)).trimmingCharacters()
    }

    private static func isMarkup(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "`"), UInt8(ascii: "*"), UInt8(ascii: "_"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "<"),
             UInt8(ascii: ">"), UInt8(ascii: "&"), UInt8(ascii: "\\"), UInt8(ascii: "!"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    static func literalAngles(_ text: String) -> String {
        text.utf8.contains(UInt8(ascii: "<")) ? text.replacingAll("<", with: "\\<") : text
    }
}
